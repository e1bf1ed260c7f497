import type { GpuIdentity } from "../gpu/nvidia-smi-csv.js";
import type { GpuUsage } from "../usage-parts.js";

/** The arguments the collector hands amd-smi for readings: engine use, power, temperatures and VRAM, as JSON. */
export const AMD_SMI_METRIC_ARGS = [
  "metric",
  "--usage",
  "--power",
  "--temperature",
  "--mem-usage",
  "--json",
] as const;

/** The arguments the collector hands amd-smi to name its GPUs: index, PCI address, UUID, partition. */
export const AMD_SMI_LIST_ARGS = ["list", "--json"] as const;

/** One logical GPU as `amd-smi list --json` names it; a partition of a GPU is one too. */
export type AmdSmiDevice = { index: number; pciBusId?: string; uuid?: string; partitionId?: number };

/** What {@link parseAmdSmiMetric} read: each GPU's reading and identity, the GPUs it had to skip, every index seen. */
export type AmdSmiReading = {
  gpus: { usage: GpuUsage; identity: GpuIdentity }[];
  /** GPUs without a utilisation or used-VRAM figure, e.g. `gpu 2: usage.gfx_activity not available`. */
  skipped: string[];
  /** The index of every GPU amd-smi printed, skipped ones included. */
  indices: number[];
};

type Obj = Record<string, unknown>;

const MiB = 1024 * 1024;
// amd-smi divides bytes by 1024*1024 and calls the result MB; bare numbers (older releases) are the same.
const MEMORY_UNITS: Record<string, number> = { B: 1, KB: 1024, MB: MiB, GB: 1024 * MiB };
const BDF = /^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]$/;
const UUID = /^[0-9A-Fa-f][0-9A-Fa-f-]{7,63}$/;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A figure as amd-smi prints it: `12`, `"12"`, or (newer releases) `{"value": 12, "unit": "%"}`; `"N/A"` is none. */
function figure(v: unknown): { n: number; unit?: string } | undefined {
  if (isObj(v)) {
    const inner = figure(v.value);
    return inner && { n: inner.n, unit: typeof v.unit === "string" ? v.unit : undefined };
  }
  if (typeof v === "number") return Number.isFinite(v) ? { n: v } : undefined;
  if (typeof v === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return { n: Number(v) };
  return undefined;
}

function first(group: unknown, keys: string[]): number | undefined {
  if (!isObj(group)) return undefined;
  for (const k of keys) {
    const f = figure(group[k]);
    if (f) return f.n;
  }
  return undefined;
}

function bytes(group: unknown, key: string): number | undefined {
  const f = isObj(group) ? figure(group[key]) : undefined;
  const scale = f && MEMORY_UNITS[(f.unit ?? "MB").toUpperCase()];
  return f && scale && f.n >= 0 ? Math.round(f.n * scale) : undefined;
}

function index(entry: Obj): number | undefined {
  const i = entry.gpu;
  return typeof i === "number" && Number.isInteger(i) && i >= 0 && i < 4096 ? i : undefined;
}

/**
 * The per-GPU entries of amd-smi's JSON: older releases print a list, newer ones
 * `{"cpu_data": [...], "core_data": [...], "gpu_data": [...]}`. Text before the JSON (amd-smi warns
 * on stdout, e.g. about a missing render group) is passed over. Throws on anything else.
 */
function entries(text: string, what: string): unknown[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const at = text.search(/^[[{]/m);
    if (at <= 0) throw error;
    data = JSON.parse(text.slice(at));
  }
  if (Array.isArray(data)) return data;
  if (isObj(data) && Array.isArray(data.gpu_data)) return data.gpu_data;
  throw new TypeError(`amd-smi ${what} --json printed neither a list of GPUs nor {"gpu_data": [...]}`);
}

/**
 * Parse `amd-smi list --json`: per logical GPU its `gpu` index, `bdf`, `uuid` and (newer releases)
 * `partition_id`. Values amd-smi could not read (`"N/A"`, an error text) are left out. Throws on text
 * that is not such JSON.
 *
 * @example
 * ```ts
 * parseAmdSmiList('[{"gpu": 0, "bdf": "0000:0c:00.0", "uuid": "N/A", "partition_id": 0}]').get(0);
 * // { index: 0, pciBusId: "0000:0c:00.0", partitionId: 0 }
 * ```
 */
export function parseAmdSmiList(text: string): Map<number, AmdSmiDevice> {
  const out = new Map<number, AmdSmiDevice>();
  for (const entry of entries(text, "list")) {
    if (!isObj(entry)) continue;
    const i = index(entry);
    if (i === undefined) continue;
    const device: AmdSmiDevice = { index: i };
    if (typeof entry.bdf === "string" && BDF.test(entry.bdf)) device.pciBusId = entry.bdf;
    if (typeof entry.uuid === "string" && UUID.test(entry.uuid)) device.uuid = entry.uuid;
    const p = entry.partition_id;
    if (typeof p === "number" && Number.isInteger(p) && p >= 0) device.partitionId = p;
    out.set(i, device);
  }
  return out;
}

/** The GFX busy figures of each partition (`usage.gfx_busy_inst.xcp_<n>`); undefined unless the GPU is split. */
function partitionBusy(usage: unknown): Map<number, number[]> | undefined {
  const table = isObj(usage) ? usage.gfx_busy_inst : undefined;
  if (!isObj(table)) return undefined;
  const out = new Map<number, number[]>();
  for (const [key, slots] of Object.entries(table)) {
    const m = /^xcp_(\d{1,2})$/.exec(key);
    if (!m || !Array.isArray(slots)) continue;
    out.set(
      Number(m[1]),
      slots.flatMap((s) => figure(s)?.n ?? []),
    );
  }
  return out.size > 1 ? out : undefined;
}

/**
 * Parse `amd-smi metric --usage --power --temperature --mem-usage --json` in the shapes amd-smi
 * releases print: a list or `{"gpu_data": [...]}` of `{"gpu": N, "usage": …, "power": …,
 * "temperature": …, "mem_usage": …}`, values bare (older) or `{"value": N, "unit": U}`. Utilisation
 * is `gfx_activity` (`gfx_usage` in the oldest); power `socket_power`, else `current_power`, else
 * `average_power`; temperature the edge sensor, else the hotspot; VRAM `used_vram`/`total_vram`.
 * On a GPU split into partitions every logical GPU prints the device's whole `gfx_busy_inst` table
 * and its package power: a partition's utilisation is the mean of its own `xcp_<partition_id>` row
 * (partition ids from `devices`, i.e. `amd-smi list`), and it gets no power figure. `devices` also
 * gives PCI addresses and UUIDs. GPUs without utilisation or used VRAM are skipped, not thrown.
 * Throws on text that is not such JSON.
 *
 * @example
 * ```ts
 * parseAmdSmiMetric('[{"gpu": 0, "usage": {"gfx_activity": 12}, "mem_usage": {"used_vram": 1}}]').gpus[0].usage;
 * // { index: 0, utilizationPercent: 12, memoryUsedBytes: 1048576 }
 * ```
 */
export function parseAmdSmiMetric(
  text: string,
  devices: ReadonlyMap<number, AmdSmiDevice> = new Map(),
): AmdSmiReading {
  const gpus: AmdSmiReading["gpus"] = [];
  const skipped: string[] = [];
  const indices: number[] = [];
  for (const [at, entry] of entries(text, "metric").entries()) {
    const i = isObj(entry) ? index(entry) : undefined;
    if (!isObj(entry) || i === undefined) {
      skipped.push(`entry ${at}: no gpu index`);
      continue;
    }
    indices.push(i);
    const device = devices.get(i);
    const partitions = partitionBusy(entry.usage);
    let util: number | undefined;
    if (partitions) {
      const p = device?.partitionId;
      const busy = p === undefined ? undefined : partitions.get(p);
      if (!busy?.length) {
        skipped.push(`gpu ${i}: usage.gfx_busy_inst.xcp_${p ?? "?"} not available for this partition`);
        continue;
      }
      util = busy.reduce((a, b) => a + b, 0) / busy.length;
    } else util = first(entry.usage, ["gfx_activity", "gfx_usage"]);
    if (util === undefined) {
      skipped.push(`gpu ${i}: usage.gfx_activity not available`);
      continue;
    }
    const used = bytes(entry.mem_usage, "used_vram");
    if (used === undefined) {
      skipped.push(`gpu ${i}: mem_usage.used_vram not available`);
      continue;
    }
    const usage: GpuUsage = {
      index: i,
      utilizationPercent: Math.min(100, Math.max(0, util)),
      memoryUsedBytes: used,
    };
    const identity: GpuIdentity = { index: i, minor: i };
    // The UUID goes on the reading too: allocations resolved through known() must match it.
    if (device?.uuid) {
      usage.uuid = device.uuid;
      identity.uuid = device.uuid;
    }
    if (device?.pciBusId) {
      usage.pciBusId = device.pciBusId;
      identity.pciBusId = device.pciBusId;
    }
    const total = bytes(entry.mem_usage, "total_vram");
    if (total !== undefined) usage.memoryTotalBytes = total;
    const power = partitions
      ? undefined
      : first(entry.power, ["socket_power", "current_power", "average_power"]);
    if (power !== undefined && power >= 0) usage.powerWatts = power;
    const temp = first(entry.temperature, ["edge", "hotspot"]);
    if (temp !== undefined) usage.temperatureCelsius = temp;
    gpus.push({ usage, identity });
  }
  gpus.sort((a, b) => a.usage.index - b.usage.index);
  return { gpus, skipped, indices };
}
