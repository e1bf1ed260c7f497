import type { ResourceName } from "@jobsight/schemas";
import { type HistoryJob, RESOURCE_FIELDS } from "./history-job.js";

/** How one resource is read from a past job. */
export type ResourceSpec = {
  name: ResourceName;
  /** What the job really used, or undefined when unknown / not positive. */
  target(job: HistoryJob): number | undefined;
  /** What the job asked for, or undefined. */
  request(job: HistoryJob): number | undefined;
  /**
   * The size the usage tends to scale with (processors for memory and cores), or undefined when the
   * resource does not scale with anything known at submit time.
   */
  scale(job: HistoryJob): number | undefined;
  /**
   * Share of its request from which a job's value is raised to the request (undefined: never).
   * Walltime only: a job killed at its time limit loses all its work, and jobs predicted at half
   * their request or more were the ones that ran to it (HPC2N: 9 of its 12 points of work lost).
   */
  keepRequestAbove?: number;
};

/** Whether a job's usage is only a lower bound of its need (it was killed or cancelled). */
export function isCensored(job: HistoryJob): boolean {
  return job.outcome !== "completed";
}

function positive(v: number | undefined): number | undefined {
  return v !== undefined && v > 0 && Number.isFinite(v) ? v : undefined;
}

/** The standard reading of a resource from {@link HistoryJob}. */
export function resourceSpec(name: ResourceName): ResourceSpec {
  const field = RESOURCE_FIELDS[name];
  const scaled = name === "memory" || name === "cores" || name === "gpuMemory";
  return {
    name,
    target: (job) => positive(job.used[field]),
    request: (job) => positive(job.requested[field]),
    scale: scaled ? (job) => positive(job.requested.cores) : () => undefined,
    ...(name === "walltime" && { keepRequestAbove: 0.5 }),
  };
}

/** All resources, in report order. */
export const ALL_RESOURCES: ResourceName[] = ["memory", "cores", "gpus", "gpuMemory", "walltime"];
