import type { JobRecord } from "@jobsight/schemas";

/** What one ended job held and did not use, in hours of the resource. */
export type JobWaste = {
  /** Reserved cores × run time − CPU time. */
  unusedCoreHours: number;
  /** Reserved GPUs × run time − GPUs that did work × run time (0 when the GPUs' use is unknown). */
  unusedGpuHours: number;
  /** (Requested − peak memory) × run time, in GiB-hours (0 when either is unknown). */
  unusedMemoryGiBHours: number;
};

const GIB = 2 ** 30;

/**
 * What an ended job left unused. Unknown figures count as nothing unused: a job whose use was
 * never measured is not called wasteful.
 *
 * @example
 * ```ts
 * jobWaste(record).unusedCoreHours; // 7.5 for 8 cores held 1 h using 0.5 core
 * ```
 */
export function jobWaste(job: JobRecord): JobWaste {
  const run = runSeconds(job);
  if (run === undefined) return { unusedCoreHours: 0, unusedGpuHours: 0, unusedMemoryGiBHours: 0 };
  const hours = run / 3600;
  const requested = job.spec.requested;
  const cores = job.allocated?.cores ?? requested.cores;
  const cpu =
    job.peaks?.cpuTimeSeconds ?? (job.peaks?.coresUsed !== undefined ? job.peaks.coresUsed * run : undefined);
  const gpus = job.allocated?.gpus ?? requested.gpus ?? 0;
  const gpusUsed = job.peaks?.gpusUsed;
  const memory = requested.memoryBytes;
  const peak = job.peaks?.memoryBytes;
  return {
    unusedCoreHours: cores !== undefined && cpu !== undefined ? Math.max(0, cores * hours - cpu / 3600) : 0,
    unusedGpuHours: gpus > 0 && gpusUsed !== undefined ? Math.max(0, (gpus - gpusUsed) * hours) : 0,
    unusedMemoryGiBHours:
      memory !== undefined && peak !== undefined ? Math.max(0, ((memory - peak) / GIB) * hours) : 0,
  };
}

/**
 * One number to rank jobs by waste: a GPU-hour weighs like 8 core-hours, and 8 GiB-hours of
 * memory like one core-hour (the ratios of common charging schemes).
 */
export function wasteScore(w: JobWaste): number {
  return w.unusedGpuHours * 8 + w.unusedCoreHours + w.unusedMemoryGiBHours / 8;
}

/**
 * A job's run time in seconds: the scheduler's figure, else end − start; `undefined` when unknown.
 *
 * @example
 * ```ts
 * runSeconds({ ...record, startedAt: "2026-12-01T00:00:00Z", endedAt: "2026-12-01T02:00:00Z" }); // 7200
 * ```
 */
export function runSeconds(job: JobRecord): number | undefined {
  if (job.peaks?.runTimeSeconds !== undefined) return job.peaks.runTimeSeconds;
  if (job.startedAt && job.endedAt)
    return Math.max(0, (Date.parse(job.endedAt) - Date.parse(job.startedAt)) / 1000);
  return undefined;
}
