import { readSmallFile } from "../../util/read-small-file.js";
import type { JobProcesses } from "../proc-job-attribution.js";
import type { ProcReader } from "../proc-reader.js";
import { type MigRef, migRefKey, parseMigRef } from "./mig-ref.js";

/**
 * A GPU named by a job's allocation: the number of its device file (`/dev/nvidia<minor>`, which is
 * what SLURM writes into `SLURM_JOB_GPUS` and the device cgroup), its UUID, its NVML index (the
 * NVIDIA device plugin's `index` strategy), its PCI address (AMD's device plugin), or a MIG
 * instance of a GPU ({@link MigRef}).
 */
export type GpuRef =
  | { minor: number }
  | { uuid: string }
  | { index: number }
  | { pciBusId: string }
  | { mig: MigRef };

/** The NVIDIA character devices' major number; minors 254 and 255 are nvidia-modeset and nvidiactl. */
const NVIDIA_MAJOR = 195;
const MAX_GPU_MINOR = 253;

/**
 * Parse a GPU list from a job's environment: `SLURM_JOB_GPUS=0,2`, `CUDA_VISIBLE_DEVICES=GPU-5f3c…,GPU-9a8b…`,
 * or MIG instances as CUDA names them (`MIG-<uuid>`, or `MIG-GPU-<uuid>/<gi>/<ci>` before driver R470).
 * SLURM's `NoDevFiles`, an empty value or `-1` mean no GPU.
 *
 * @example
 * ```ts
 * parseGpuIdList("0,3"); // [{ minor: 0 }, { minor: 3 }]
 * parseGpuIdList("GPU-5f3c2a1b"); // [{ uuid: "GPU-5f3c2a1b" }]
 * parseGpuIdList("MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f"); // [{ mig: { uuid: "MIG-c6d4…" } }]
 * ```
 */
export function parseGpuIdList(value: string): GpuRef[] {
  const out: GpuRef[] = [];
  for (const raw of value.split(",")) {
    const item = raw.trim();
    if (/^\d{1,3}$/.test(item)) {
      const minor = Number(item);
      if (minor <= MAX_GPU_MINOR) out.push({ minor });
    } else if (/^GPU-[0-9A-Fa-f-]{4,}$/.test(item)) out.push({ uuid: item });
    else {
      const mig = parseMigRef(item);
      if (mig) out.push({ mig });
    }
  }
  return out;
}

/**
 * The GPU minors a cgroup v1 `devices.list` allows (`c 195:0 rwm`). Undefined when the list
 * allows every device (`a *:* rwm`, the kernel's answer for a cgroup that only denies some) or
 * every NVIDIA device (`c 195:* rwm`): then it says nothing about the allocation.
 *
 * @example
 * ```ts
 * parseDevicesList("c 1:3 rwm\nc 195:255 rwm\nc 195:1 rwm\n"); // [1]
 * ```
 */
export function parseDevicesList(text: string): number[] | undefined {
  const minors: number[] = [];
  for (const line of text.split("\n")) {
    const m = /^([abc]) (\*|\d+):(\*|\d+) [rwm]+$/.exec(line.trim());
    if (!m) continue;
    if (m[1] === "a") return undefined;
    if (m[1] !== "c" || (m[2] !== "*" && Number(m[2]) !== NVIDIA_MAJOR)) continue;
    if (m[3] === "*") return undefined;
    const minor = Number(m[3]);
    if (minor <= MAX_GPU_MINOR && !minors.includes(minor)) minors.push(minor);
  }
  return minors;
}

// Job-wide and step-wide lists hold global device numbers. CUDA_VISIBLE_DEVICES is renumbered
// from 0 inside a device-constrained job, so its numbers are only a last resort (UUIDs are global).
const VARIABLES = ["SLURM_JOB_GPUS", "SLURM_STEP_GPUS", "CUDA_VISIBLE_DEVICES"] as const;

/** Options of {@link SlurmGpuAllocation}. */
export type SlurmGpuAllocationOptions = {
  /** Where processes' environments are read from. */
  proc: ProcReader;
  /** The cgroup v1 mount, to read each job's `devices/…/job_<id>/devices.list`; unset on cgroup v2. @default none */
  cgroupV1Root?: string;
};

type Seen = { starttime: number; refs: GpuRef[]; round: number };

/**
 * Which GPUs SLURM allocated to each job on this node, whether or not anything runs on them: from
 * `SLURM_JOB_GPUS`, `SLURM_STEP_GPUS` or `CUDA_VISIBLE_DEVICES` in the job's processes'
 * environments (`/proc/<pid>/environ`, read once per process), and on cgroup v1 from the job's
 * device allow-list.
 *
 * @example
 * ```ts
 * const allocation = new SlurmGpuAllocation({ proc });
 * allocation.read(attribution.scan(), jobDirs).get("4242"); // [{ minor: 0 }, { minor: 1 }]
 * ```
 */
export class SlurmGpuAllocation {
  private readonly proc: ProcReader;
  private readonly memoryPrefix: string | undefined;
  private readonly devicesPrefix: string | undefined;
  private readonly seen = new Map<number, Seen>();
  private readonly deviceLists = new Map<string, number[] | undefined>();
  private round = 0;

  constructor(options: SlurmGpuAllocationOptions) {
    this.proc = options.proc;
    if (options.cgroupV1Root) {
      this.memoryPrefix = `${options.cgroupV1Root}/memory/`;
      this.devicesPrefix = `${options.cgroupV1Root}/devices/`;
    }
  }

  /**
   * The GPUs of every SLURM job among `jobs` (its processes, from /proc) and `dirs` (its cgroup
   * v1 memory directory, by job id). Jobs with no GPU found are left out.
   */
  read(jobs: Map<string, JobProcesses> | undefined, dirs?: Map<string, string>): Map<string, GpuRef[]> {
    const round = ++this.round;
    const out = new Map<string, GpuRef[]>();
    jobs?.forEach((job, jobId) => {
      if (job.scheduler !== "slurm") return;
      const refs: GpuRef[] = [];
      for (const p of job.processes) {
        let s = this.seen.get(p.pid);
        if (!s || s.starttime !== p.starttime) {
          s = { starttime: p.starttime, refs: this.fromEnvironment(p.pid), round };
          this.seen.set(p.pid, s);
        }
        s.round = round;
        for (const r of s.refs) add(refs, r);
      }
      if (refs.length > 0) out.set(jobId, refs);
    });
    this.seen.forEach((s, pid) => {
      if (s.round !== round) this.seen.delete(pid);
    });
    const live = new Set<string>();
    dirs?.forEach((dir, jobId) => {
      const path = this.devicesPath(dir);
      if (!path) return;
      live.add(path);
      // A job's device cgroup is set up once, when the job starts.
      if (!this.deviceLists.has(path)) {
        const text = readSmallFile(path, 16 * 1024);
        this.deviceLists.set(path, text === undefined ? undefined : parseDevicesList(text));
      }
      const minors = this.deviceLists.get(path);
      if (!minors || minors.length === 0) return;
      const refs = out.get(jobId) ?? [];
      for (const minor of minors) add(refs, { minor });
      out.set(jobId, refs);
    });
    for (const path of this.deviceLists.keys()) if (!live.has(path)) this.deviceLists.delete(path);
    return out;
  }

  private fromEnvironment(pid: number): GpuRef[] {
    // A job given MIG instances has their UUIDs in CUDA_VISIBLE_DEVICES, and SLURM_JOB_GPUS then
    // counts MIG GRES, not GPU device files: the instances are the allocation.
    const cuda = this.proc.environVariable(pid, "CUDA_VISIBLE_DEVICES");
    const migs = cuda ? parseGpuIdList(cuda).filter((r) => "mig" in r) : [];
    if (migs.length > 0) return migs;
    const found = this.proc.firstEnvironVariable(pid, VARIABLES);
    return found ? parseGpuIdList(found.value) : [];
  }

  private devicesPath(memoryDir: string): string | undefined {
    if (!this.memoryPrefix || !memoryDir.startsWith(this.memoryPrefix)) return undefined;
    return `${this.devicesPrefix}${memoryDir.slice(this.memoryPrefix.length)}/devices.list`;
  }
}

function add(refs: GpuRef[], ref: GpuRef): void {
  // SLURM names GPUs by minor, UUID or MIG UUID only; the other kinds come from the kubelet.
  const same = (r: GpuRef) =>
    "minor" in r
      ? "minor" in ref && r.minor === ref.minor
      : "uuid" in r
        ? "uuid" in ref && r.uuid === ref.uuid
        : "mig" in r
          ? "mig" in ref && migRefKey(r.mig) === migRefKey(ref.mig)
          : false;
  if (!refs.some(same)) refs.push(ref);
}
