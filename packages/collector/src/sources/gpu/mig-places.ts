// dcgm-exporter names a MIG instance by its parent GPU and GPU instance id (GPU_I_ID), an
// allocation by its MIG UUID. nvidia-smi ties the two: `-L` lists each GPU's MIG devices by
// device index with their UUIDs, `-q -x` lists the same device indices with their GPU instance ids.

/** Where a MIG UUID lives: its parent GPU and GPU instance. */
export type MigPlace = { parentUuid: string; gpuInstanceId: number };

const GPU_LINE = /^GPU (\d+): .*\(UUID: (GPU-[0-9A-Fa-f-]+)\)\s*$/;
const MIG_LINE = /^\s+MIG \S+\s+Device\s+(\d+): \(UUID: (MIG-[^\s)]+)\)\s*$/;
const LEGACY_MIG = /^MIG-(GPU-[0-9A-Fa-f-]+)\/(\d+)\/\d+$/;

/** A GPU's MIG devices as `nvidia-smi -L` lists them: MIG UUID by MIG device index. */
export type MigDeviceList = Map<string, Map<number, string>>;

/**
 * The MIG devices of each GPU in `nvidia-smi -L` output, by the parent's UUID:
 *
 * ```text
 * GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-7099682b-…)
 *   MIG 1g.5gb      Device  0: (UUID: MIG-c6d4f1ef-…)
 * ```
 *
 * @example
 * ```ts
 * parseMigDeviceList(text).get("GPU-7099682b-…")?.get(0); // "MIG-c6d4f1ef-…"
 * ```
 */
export function parseMigDeviceList(text: string): MigDeviceList {
  const out: MigDeviceList = new Map();
  let gpu: Map<number, string> | undefined;
  for (const line of text.split("\n")) {
    const g = GPU_LINE.exec(line);
    if (g) {
      gpu = new Map();
      out.set(g[2], gpu);
      continue;
    }
    const m = MIG_LINE.exec(line);
    if (m && gpu) gpu.set(Number(m[1]), m[2]);
  }
  return out;
}

const text = (xml: string, tag: string): string | undefined =>
  new RegExp(`<${tag}>\\s*([^<]*?)\\s*</${tag}>`).exec(xml)?.[1];

/**
 * The GPU instance id of each MIG device index, by parent UUID, in `nvidia-smi -q -x` output
 * (`<gpu>` … `<mig_devices><mig_device><index>0</index><gpu_instance_id>13</gpu_instance_id>` …
 * `<uuid>GPU-…</uuid>`, as in NVIDIA's nvsmi_device DTD).
 *
 * @example
 * ```ts
 * parseMigInstanceIds(xml).get("GPU-7099682b-…")?.get(0); // 13
 * ```
 */
export function parseMigInstanceIds(xml: string): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  for (const gpu of xml.split(/<gpu\s+id=/).slice(1)) {
    const migs = /<mig_devices>([\s\S]*?)<\/mig_devices>/.exec(gpu)?.[1] ?? "";
    const uuid = text(gpu.replace(migs, ""), "uuid");
    if (!uuid?.startsWith("GPU-")) continue;
    const byIndex = new Map<number, number>();
    for (const device of migs.split("<mig_device>").slice(1)) {
      const index = text(device, "index");
      const gi = text(device, "gpu_instance_id");
      if (index && gi && /^\d+$/.test(index) && /^\d+$/.test(gi)) byIndex.set(Number(index), Number(gi));
    }
    out.set(uuid, byIndex);
  }
  return out;
}

/**
 * Where each MIG UUID lives: joins `nvidia-smi -L` (MIG UUID by device index) with
 * `nvidia-smi -q -x` (GPU instance id by device index). A UUID of the pre-R470 form
 * (`MIG-GPU-<uuid>/<gi>/<ci>`) names its place itself.
 *
 * @example
 * ```ts
 * migPlaces(listText, queryXml).get("MIG-c6d4f1ef-…"); // { parentUuid: "GPU-7099682b-…", gpuInstanceId: 13 }
 * ```
 */
export function migPlaces(listText: string, queryXml: string | undefined): Map<string, MigPlace> {
  const out = new Map<string, MigPlace>();
  const ids = queryXml === undefined ? new Map<string, Map<number, number>>() : parseMigInstanceIds(queryXml);
  for (const [parentUuid, devices] of parseMigDeviceList(listText)) {
    for (const [index, uuid] of devices) {
      const legacy = LEGACY_MIG.exec(uuid);
      const gpuInstanceId = legacy ? Number(legacy[2]) : ids.get(parentUuid)?.get(index);
      if (gpuInstanceId !== undefined) out.set(uuid, { parentUuid, gpuInstanceId });
    }
  }
  return out;
}
