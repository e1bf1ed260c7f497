import type { JobRecord } from "@jobsight/schemas";
import { runSeconds } from "./job-waste.js";
import type { DigestEdit } from "./submission-edits.js";

/** The reservation a job's edits would not have held, in hours of each resource. */
export type EditSavings = {
  coreHours: number;
  memoryGibHours: number;
  gpuHours: number;
  /** The GPU type the job requested, lower case (`""`: none named), which prices its GPU-hours. */
  gpuType: string;
};

const GIB = 2 ** 30;

/**
 * What a job would have saved with its edits applied: for memory, cores and GPUs, requested less
 * advised over its run time, never below what it was seen to use (an edit under the job's use
 * would have failed it, not saved anything). A walltime edit frees no resource-hours: a job
 * holds its resources until it ends, whatever it asked for.
 *
 * @example
 * ```ts
 * editSavings(job, [{ resource: "cores", requested: 8, advised: 2 }]).coreHours; // 12 over 2 h, 1 core used
 * ```
 */
export function editSavings(job: JobRecord, edits: readonly DigestEdit[]): EditSavings {
  const saved: EditSavings = {
    coreHours: 0,
    memoryGibHours: 0,
    gpuHours: 0,
    gpuType: (job.spec.requested.gpuModel ?? "").toLowerCase(),
  };
  const run = runSeconds(job);
  if (run === undefined || run === 0) return saved;
  const hours = run / 3600;
  const peaks = job.peaks;
  const coresUsed =
    peaks?.cpuTimeSeconds !== undefined ? peaks.cpuTimeSeconds / run : (peaks?.coresUsed ?? undefined);
  const cut = (e: DigestEdit, used: number | undefined) =>
    Math.max(0, e.requested - Math.max(e.advised, used ?? e.advised));
  for (const e of edits) {
    if (e.resource === "memory") saved.memoryGibHours += (cut(e, peaks?.memoryBytes) / GIB) * hours;
    else if (e.resource === "cores") saved.coreHours += cut(e, coresUsed) * hours;
    else if (e.resource === "gpus") saved.gpuHours += cut(e, peaks?.gpusUsed) * hours;
  }
  return saved;
}
