import type { GpuUsage } from "../usage-parts.js";

const MiB = 1024 * 1024;

/** The fields the collector asks `nvidia-smi --query-gpu` for, in this order. */
export const GPU_QUERY_FIELDS = [
  "index",
  "uuid",
  "pci.bus_id",
  "utilization.gpu",
  "memory.used",
  "memory.total",
  "power.draw",
  "temperature.gpu",
  "minor_number",
] as const;

// minor_number came later; recorded or older outputs with the first eight fields still parse.
const REQUIRED_GPU_FIELDS = 8;

/** The fields the collector asks `nvidia-smi --query-compute-apps` for. */
export const COMPUTE_APPS_FIELDS = ["pid", "gpu_uuid", "used_memory"] as const;

/** A value nvidia-smi prints when it has none: `[N/A]`, `[Not Supported]`, `[Unknown Error]`, … */
function value(field: string | undefined): string | undefined {
  const v = field?.trim();
  if (v === undefined || v === "" || (v.startsWith("[") && v.endsWith("]")) || v === "N/A") return undefined;
  return v;
}

function num(field: string | undefined): number | undefined {
  const v = value(field);
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** One line of `--query-gpu` output that could not become a {@link GpuUsage}, and why. */
export type GpuLineProblem = { line: string; reason: string };

/**
 * Parse one line of `nvidia-smi --query-gpu=index,uuid,pci.bus_id,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu,minor_number --format=csv,noheader,nounits`,
 * e.g. `0, GPU-5f3c…, 00000000:3B:00.0, 87, 30512, 40960, 245.67, 71, 0` (memory in MiB). Fields the
 * GPU cannot report (`[N/A]`, `[Not Supported]`) are left out; a line without the index,
 * utilisation or used memory the schema requires is returned as a problem.
 *
 * @example
 * ```ts
 * parseGpuLine("1, GPU-abc, 00000000:3B:00.0, 50, 1024, 40960, [N/A], 40");
 * // { index: 1, uuid: "GPU-abc", …, memoryUsedBytes: 1073741824 }
 * ```
 */
export function parseGpuLine(line: string): GpuUsage | GpuLineProblem {
  const f = line.split(",");
  if (f.length < REQUIRED_GPU_FIELDS) return { line, reason: `expected ${GPU_QUERY_FIELDS.length} fields` };
  const index = num(f[0]);
  const util = num(f[3]);
  const used = num(f[4]);
  if (index === undefined || !Number.isInteger(index) || index < 0) return { line, reason: "no GPU index" };
  if (util === undefined) return { line, reason: "utilization.gpu not available" };
  if (used === undefined) return { line, reason: "memory.used not available" };
  const gpu: GpuUsage = {
    index,
    utilizationPercent: Math.min(100, Math.max(0, util)),
    memoryUsedBytes: Math.round(used * MiB),
  };
  const uuid = value(f[1]);
  if (uuid) gpu.uuid = uuid.slice(0, 128);
  const bus = value(f[2]);
  if (bus) gpu.pciBusId = bus.slice(0, 64);
  const total = num(f[5]);
  if (total !== undefined) gpu.memoryTotalBytes = Math.round(total * MiB);
  const power = num(f[6]);
  if (power !== undefined && power >= 0) gpu.powerWatts = power;
  const temp = num(f[7]);
  if (temp !== undefined) gpu.temperatureCelsius = temp;
  return gpu;
}

/** How one GPU is named: nvidia-smi's index, its UUID and PCI address, and its device file's minor. */
export type GpuIdentity = { index: number; uuid?: string; pciBusId?: string; minor?: number };

/**
 * The identity of the GPU a `--query-gpu` line describes: `minor` is the N of `/dev/nvidia<N>`,
 * which SLURM's GPU lists and device cgroups name, and need not equal the index.
 *
 * @example
 * ```ts
 * const line = "1, GPU-abc, 00000000:3B:00.0, 50, 1024, 40960, 80, 40, 3";
 * gpuIdentity(parseGpuLine(line) as GpuUsage, line); // { index: 1, uuid: "GPU-abc", pciBusId: "00000000:3B:00.0", minor: 3 }
 * ```
 */
export function gpuIdentity(gpu: GpuUsage, line: string): GpuIdentity {
  const id: GpuIdentity = { index: gpu.index };
  if (gpu.uuid) id.uuid = gpu.uuid;
  if (gpu.pciBusId) id.pciBusId = gpu.pciBusId;
  const minor = num(line.split(",")[REQUIRED_GPU_FIELDS]);
  if (minor !== undefined && Number.isInteger(minor) && minor >= 0) id.minor = minor;
  return id;
}

/** One process using a GPU, from `--query-compute-apps`. */
export type ComputeApp = { pid: number; gpuUuid: string; usedMemoryBytes?: number };

/**
 * Parse `nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv,noheader,nounits`
 * (`12345, GPU-5f3c…, 30500` per line; empty when no process uses a GPU). Lines that are not
 * CSV rows (such as "No running processes found") are skipped.
 *
 * @example
 * ```ts
 * parseComputeApps("4242, GPU-abc, 2048\n"); // [{ pid: 4242, gpuUuid: "GPU-abc", usedMemoryBytes: 2147483648 }]
 * ```
 */
export function parseComputeApps(text: string): ComputeApp[] {
  const out: ComputeApp[] = [];
  for (const line of text.split("\n")) {
    const f = line.split(",");
    if (f.length < 2) continue;
    const pid = num(f[0]);
    const uuid = value(f[1]);
    if (pid === undefined || !Number.isInteger(pid) || pid < 1 || !uuid) continue;
    const app: ComputeApp = { pid, gpuUuid: uuid };
    const used = num(f[2]);
    if (used !== undefined) app.usedMemoryBytes = Math.round(used * MiB);
    out.push(app);
  }
  return out;
}

/**
 * The PCI address as the kernel's Xid lines print it (`0000:3b:00`), from nvidia-smi's
 * `00000000:3B:00.0`, so GPU readings and kernel-log faults can be matched.
 *
 * @example
 * ```ts
 * shortPciBusId("00000000:3B:00.0"); // "0000:3b:00"
 * ```
 */
export function shortPciBusId(busId: string): string | undefined {
  const m = /([0-9a-fA-F]+):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})/.exec(busId);
  if (!m) return undefined;
  return `${m[1].slice(-4).padStart(4, "0")}:${m[2]}:${m[3]}`.toLowerCase();
}
