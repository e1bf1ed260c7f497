import { jobFromProcCgroup } from "../sources/cgroup-job-path.js";
import type { ComputeApp } from "../sources/nvidia-smi-csv.js";
import { shortPciBusId } from "../sources/nvidia-smi-csv.js";
import type { ProcReader } from "../sources/proc-reader.js";
import type { GpuUsage } from "../sources/usage-parts.js";

/** Which GPUs each job uses, and which job uses each GPU (by short PCI address). */
export type GpuAssignment = { byJob: Map<string, GpuUsage[]>; jobByPci: Map<string, string> };

/**
 * Match GPU readings to jobs: each process nvidia-smi lists (`--query-compute-apps`) is traced to
 * its job through `/proc/<pid>/cgroup`, or through `pidJob` on nodes without cgroups. A job gets
 * the whole reading of every GPU one of its processes uses.
 *
 * @example
 * ```ts
 * const { byJob } = assignGpus(smi.latest(), await smi.computeApps(), proc);
 * ```
 */
export function assignGpus(
  gpus: GpuUsage[],
  apps: ComputeApp[],
  proc: ProcReader,
  pidJob?: (pid: number) => string | undefined,
): GpuAssignment {
  const byUuid = new Map(gpus.filter((g) => g.uuid).map((g) => [g.uuid!, g]));
  const byJob = new Map<string, GpuUsage[]>();
  const jobByPci = new Map<string, string>();
  for (const app of apps) {
    const gpu = byUuid.get(app.gpuUuid);
    if (!gpu) continue;
    let jobId = pidJob?.(app.pid);
    if (!jobId) {
      const text = proc.cgroup(app.pid);
      jobId = text === undefined ? undefined : jobFromProcCgroup(text)?.jobId;
    }
    if (!jobId) continue;
    const list = byJob.get(jobId) ?? [];
    if (!list.includes(gpu)) list.push(gpu);
    byJob.set(jobId, list);
    const pci = gpu.pciBusId ? shortPciBusId(gpu.pciBusId) : undefined;
    if (pci) jobByPci.set(pci, jobId);
  }
  return { byJob, jobByPci };
}
