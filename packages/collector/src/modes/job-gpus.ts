import { jobFromProcCgroup } from "../sources/cgroup-job-path.js";
import { findMigReading } from "../sources/gpu/mig-ref.js";
import type { ComputeApp, GpuIdentity } from "../sources/gpu/nvidia-smi-csv.js";
import { shortPciBusId } from "../sources/gpu/nvidia-smi-csv.js";
import type { GpuRef } from "../sources/gpu/slurm-gpu-allocation.js";
import type { ProcReader } from "../sources/proc-reader.js";
import type { GpuUsage } from "../sources/usage-parts.js";

/** A process running on a GPU its job was not allocated (devices not constrained). */
export type GpuOutsideAllocation = { jobId: string; pid: number; gpu: GpuUsage };

/** Which GPUs each job uses, and which job holds each GPU (by short PCI address). */
export type GpuAssignment = {
  byJob: Map<string, GpuUsage[]>;
  jobByPci: Map<string, string>;
  outside: GpuOutsideAllocation[];
};

/** What {@link assignGpus} matches. */
export type GpuAssignmentInput = {
  /** The latest reading of each GPU. */
  readings: GpuUsage[];
  /** Processes on GPUs (`--query-compute-apps`). */
  apps: ComputeApp[];
  proc: ProcReader;
  /** The job of a process on nodes without cgroups. @default through /proc/<pid>/cgroup */
  pidJob?: (pid: number) => string | undefined;
  /** GPUs the scheduler allocated, by job. @default none */
  allocated?: Map<string, GpuRef[]>;
  /** Every GPU seen, to resolve allocations of GPUs with no current reading (lost). @default readings */
  known?: GpuIdentity[];
  /** The latest reading of each MIG instance (with `mig` set), for allocations of MIG devices. @default none */
  migReadings?: GpuUsage[];
};

/** The GPU an allocation names: by UUID (or its prefix, as CUDA takes it), index, PCI address or device minor. */
function resolve(ref: Exclude<GpuRef, { mig: unknown }>, known: GpuIdentity[]): GpuIdentity | undefined {
  if ("uuid" in ref) return known.find((g) => g.uuid?.startsWith(ref.uuid));
  if ("index" in ref) return known.find((g) => g.index === ref.index);
  if ("pciBusId" in ref) {
    const pci = shortPciBusId(ref.pciBusId);
    return pci ? known.find((g) => g.pciBusId && shortPciBusId(g.pciBusId) === pci) : undefined;
  }
  // Without minor numbers (an older nvidia-smi's output) the index is the usual stand-in.
  const byMinor = known.some((g) => g.minor !== undefined);
  return known.find((g) => (byMinor ? g.minor === ref.minor : g.index === ref.minor));
}

/** Order of a job's GPUs: by index, a GPU's MIG instances by GPU instance id after it. */
export const byDevice = (a: GpuUsage, b: GpuUsage): number =>
  a.index - b.index || (a.mig?.gpuInstanceId ?? -1) - (b.mig?.gpuInstanceId ?? -1);

/**
 * Match GPU readings to jobs. A job gets every GPU the scheduler allocated it, whether or not
 * anything runs there (an idle reservation reads 0 % utilisation), and every GPU one of its
 * processes uses (`--query-compute-apps`, traced through `/proc/<pid>/cgroup` or `pidJob`); a
 * process on a GPU outside its job's allocation is listed in `outside`. `jobByPci` names the job
 * holding each GPU, the allocation first, also for GPUs that no longer answer.
 *
 * @example
 * ```ts
 * const { byJob } = assignGpus({ readings: smi.latest(), apps: await smi.computeApps(), proc, allocated });
 * ```
 */
export function assignGpus(input: GpuAssignmentInput): GpuAssignment {
  const { readings, apps, proc, pidJob } = input;
  const known: GpuIdentity[] = input.known ?? readings;
  const byIndex = new Map(readings.map((g) => [g.index, g]));
  const byUuid = new Map(readings.filter((g) => g.uuid).map((g) => [g.uuid!, g]));
  const byJob = new Map<string, GpuUsage[]>();
  const jobByPci = new Map<string, string>();
  const outside: GpuOutsideAllocation[] = [];
  const give = (jobId: string, gpu: GpuUsage) => {
    const list = byJob.get(jobId) ?? [];
    if (!list.includes(gpu)) list.push(gpu);
    byJob.set(jobId, list);
  };
  const allowed = new Map<string, Set<number>>();
  input.allocated?.forEach((refs, jobId) => {
    const indices = new Set<number>();
    for (const ref of refs) {
      if ("mig" in ref) {
        // A MIG instance is a device of its own; its parent GPU is shared, so it names no holder.
        const instance = findMigReading(ref.mig, input.migReadings ?? [], known);
        if (instance) give(jobId, instance);
        continue;
      }
      const id = resolve(ref, known);
      if (!id) continue;
      indices.add(id.index);
      const pci = id.pciBusId ? shortPciBusId(id.pciBusId) : undefined;
      if (pci && !jobByPci.has(pci)) jobByPci.set(pci, jobId);
      const gpu = byIndex.get(id.index);
      // Identities outlive readings: a GPU in `known` with no reading now is not reported.
      if (gpu && (id.uuid === undefined || gpu.uuid === id.uuid)) give(jobId, gpu);
    }
    allowed.set(jobId, indices);
  });
  for (const app of apps) {
    const gpu = byUuid.get(app.gpuUuid);
    if (!gpu) continue;
    let jobId = pidJob?.(app.pid);
    if (!jobId) {
      const text = proc.cgroup(app.pid);
      jobId = text === undefined ? undefined : jobFromProcCgroup(text)?.jobId;
    }
    if (!jobId) continue;
    const mine = allowed.get(jobId);
    if (mine && !mine.has(gpu.index)) outside.push({ jobId, pid: app.pid, gpu });
    give(jobId, gpu);
    const pci = gpu.pciBusId ? shortPciBusId(gpu.pciBusId) : undefined;
    if (pci && !jobByPci.has(pci)) jobByPci.set(pci, jobId);
  }
  byJob.forEach((list) => {
    list.sort(byDevice);
  });
  return { byJob, jobByPci, outside };
}
