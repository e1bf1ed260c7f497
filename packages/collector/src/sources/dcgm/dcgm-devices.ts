import type { GpuIdentity } from "../gpu/nvidia-smi-csv.js";
import type { PromSample } from "../prometheus/prometheus-text.js";
import type { GpuUsage } from "../usage-parts.js";

const MiB = 1024 * 1024;

/** A MIG GPU instance: DCGM's `GPU_I_ID` and `GPU_I_PROFILE` labels (dcgm-exporter names no MIG UUID). */
export type MigInstance = { id: number; profile?: string };

/** One device dcgm-exporter reports: a whole GPU, or one MIG instance of a GPU. */
export type DcgmDevice = {
  /** Identity of the physical GPU (for a MIG instance, of its parent). */
  gpu: GpuIdentity;
  /** Set for a MIG instance: its readings are the instance's own. */
  mig?: MigInstance;
  /** The pod using the device, when dcgm-exporter's Kubernetes mapping is on (`namespace/name`). */
  pod?: string;
  /** Readings in the schema's shape: utilisation, framebuffer, power (whole GPUs), temperature. */
  usage: GpuUsage;
  /** DCGM_FI_PROF_SM_ACTIVE as a percentage, when profiling metrics are exported. */
  smActivePercent?: number;
  /** DCGM_FI_PROF_PIPE_TENSOR_ACTIVE as a percentage, when profiling metrics are exported. */
  tensorActivePercent?: number;
};

/** What {@link dcgmDevices} made of one scrape. */
export type DcgmScrape = {
  devices: DcgmDevice[];
  /** Devices left out for want of a utilisation or a used-memory reading, as `gpu` or `gpu/instance`. */
  skipped: string[];
};

type Fields = Map<string, number>;
type Acc = { labels: Record<string, string>; fields: Fields };

const pct = (ratio: number | undefined) =>
  ratio === undefined ? undefined : Math.min(100, Math.max(0, ratio * 100));

function finite(v: number | undefined): number | undefined {
  return v !== undefined && Number.isFinite(v) ? v : undefined;
}

function identity(labels: Record<string, string>, index: number): GpuIdentity {
  const id: GpuIdentity = { index };
  if (labels.UUID) id.uuid = labels.UUID.slice(0, 128);
  if (labels.pci_bus_id) id.pciBusId = labels.pci_bus_id.slice(0, 64);
  const minor = /^nvidia(\d{1,3})$/.exec(labels.device ?? "")?.[1];
  if (minor !== undefined) id.minor = Number(minor);
  return id;
}

function device(acc: Acc, index: number, mig: MigInstance | undefined): DcgmDevice | undefined {
  const f = acc.fields;
  const used = finite(f.get("DCGM_FI_DEV_FB_USED"));
  // GPU_UTIL is not reported per MIG instance; the graphics engine's activity is its measure there.
  const util = finite(f.get("DCGM_FI_DEV_GPU_UTIL")) ?? pct(finite(f.get("DCGM_FI_PROF_GR_ENGINE_ACTIVE")));
  if (used === undefined || util === undefined) return undefined;
  const gpu = identity(acc.labels, index);
  const usage: GpuUsage = {
    index,
    utilizationPercent: Math.min(100, Math.max(0, util)),
    memoryUsedBytes: Math.round(Math.max(0, used) * MiB),
  };
  if (gpu.uuid) usage.uuid = gpu.uuid;
  if (gpu.pciBusId) usage.pciBusId = gpu.pciBusId;
  // The instance's identity travels with its reading: its parent's index and UUID are shared.
  if (mig) usage.mig = { gpuInstanceId: mig.id, ...(mig.profile ? { profile: mig.profile } : {}) };
  const free = finite(f.get("DCGM_FI_DEV_FB_FREE"));
  const reserved = finite(f.get("DCGM_FI_DEV_FB_RESERVED")) ?? 0;
  if (free !== undefined && free >= 0) usage.memoryTotalBytes = Math.round((used + free + reserved) * MiB);
  const power = finite(f.get("DCGM_FI_DEV_POWER_USAGE"));
  // A MIG instance's line carries its whole GPU's power draw, which is not the instance's.
  if (!mig && power !== undefined && power >= 0) usage.powerWatts = power;
  const temp = finite(f.get("DCGM_FI_DEV_GPU_TEMP"));
  // DCGM prints 9223372036854775794 and the like for blank values; no GPU runs at 1000 °C.
  if (temp !== undefined && temp > -100 && temp < 1000) usage.temperatureCelsius = temp;
  const out: DcgmDevice = { gpu, usage };
  if (mig) out.mig = mig;
  if (acc.labels.namespace && acc.labels.pod) out.pod = `${acc.labels.namespace}/${acc.labels.pod}`;
  const sm = pct(finite(f.get("DCGM_FI_PROF_SM_ACTIVE")));
  if (sm !== undefined) out.smActivePercent = sm;
  const tensor = pct(finite(f.get("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE")));
  if (tensor !== undefined) out.tensorActivePercent = tensor;
  return out;
}

/**
 * The devices in one dcgm-exporter scrape (its documented `DCGM_FI_*` series with the labels
 * `gpu`, `UUID`, `pci_bus_id`, `device`, `GPU_I_ID`/`GPU_I_PROFILE` on MIG instances and
 * `namespace`/`pod` when its Kubernetes mapping is on). A MIG instance is a device of its own,
 * with its own memory and graphics-engine activity; a GPU split into MIG instances has no reading
 * of its own. Framebuffer figures are MiB; profiling ratios become percentages.
 *
 * @example
 * ```ts
 * const { devices } = dcgmDevices(parsePrometheusText(body).samples);
 * devices[0].usage; // { index: 0, uuid: "GPU-3431…", utilizationPercent: 93, memoryUsedBytes: … }
 * ```
 */
export function dcgmDevices(samples: PromSample[]): DcgmScrape {
  const byKey = new Map<string, Acc>();
  for (const s of samples) {
    if (!s.name.startsWith("DCGM_FI_")) continue;
    const gpu = s.labels.gpu;
    if (gpu === undefined || !/^\d{1,3}$/.test(gpu)) continue;
    const instance = s.labels.GPU_I_ID ?? "";
    const key = instance === "" ? gpu : `${gpu}/${instance}`;
    let acc = byKey.get(key);
    if (!acc) {
      acc = { labels: s.labels, fields: new Map() };
      byKey.set(key, acc);
    }
    // The pod is named on some lines and blank on others only if the exporter changed mid-scrape; keep a name.
    if (!acc.labels.pod && s.labels.pod) acc.labels = s.labels;
    acc.fields.set(s.name, s.value);
  }
  const devices: DcgmDevice[] = [];
  const skipped: string[] = [];
  const partitioned = new Set([...byKey.keys()].filter((k) => k.includes("/")).map((k) => k.split("/")[0]));
  for (const [key, acc] of byKey) {
    const [gpu, instance] = key.split("/");
    if (instance === undefined && partitioned.has(gpu)) continue;
    const mig: MigInstance | undefined =
      instance === undefined
        ? undefined
        : {
            id: Number(instance),
            ...(acc.labels.GPU_I_PROFILE ? { profile: acc.labels.GPU_I_PROFILE.slice(0, 64) } : {}),
          };
    if (mig && !Number.isInteger(mig.id)) {
      skipped.push(key);
      continue;
    }
    const d = device(acc, Number(gpu), mig);
    if (d) devices.push(d);
    else skipped.push(key);
  }
  devices.sort((a, b) => a.gpu.index - b.gpu.index || (a.mig?.id ?? -1) - (b.mig?.id ?? -1));
  return { devices, skipped };
}
