import type { OomKilledJob } from "../../../data-plane/queries/oom-history.js";

/** What makes two jobs "the same job again": what they ask for and, where stored, what they are. */
export type JobShape = {
  requestedMemoryBytes?: number;
  requestedCores?: number;
  requestedGpus?: number;
  jobName?: string;
  scriptHash?: string;
};

/**
 * Whether two jobs have the same shape: the same requested memory, cores and GPUs (a request one
 * leaves unset the other must leave unset too; unset GPUs are none), and the same script hash, or
 * else job name, when both carry one. A job asking for nothing known has no shape and matches nothing.
 *
 * @example
 * ```ts
 * sameShape({ requestedMemoryBytes: 2 ** 34, jobName: "train" }, { requestedMemoryBytes: 2 ** 34, jobName: "train" }); // true
 * ```
 */
export function sameShape(a: JobShape, b: JobShape): boolean {
  if (a.requestedMemoryBytes === undefined && a.requestedCores === undefined && a.requestedGpus === undefined)
    return false;
  if (a.requestedMemoryBytes !== b.requestedMemoryBytes) return false;
  if (a.requestedCores !== b.requestedCores) return false;
  if ((a.requestedGpus ?? 0) !== (b.requestedGpus ?? 0)) return false;
  if (a.scriptHash !== undefined && b.scriptHash !== undefined) return a.scriptHash === b.scriptHash;
  if (a.jobName !== undefined && b.jobName !== undefined) return a.jobName === b.jobName;
  return true;
}

/**
 * The user's jobs of `shape` killed for memory within `windowHours` before `nowMs`, newest first,
 * leaving out the job `exceptJobId` itself.
 */
export function killsOfShape(
  shape: JobShape,
  kills: readonly OomKilledJob[],
  nowMs: number,
  windowHours: number,
  exceptJobId?: string,
): OomKilledJob[] {
  const since = nowMs - windowHours * 3_600_000;
  return kills.filter(
    (k) =>
      k.jobId !== exceptJobId &&
      Date.parse(k.endedAt) >= since &&
      Date.parse(k.endedAt) <= nowMs &&
      sameShape(shape, k),
  );
}
