import type { ResourceName } from "@jobsight/schemas";
/**
 * A normalised past job, whatever it was imported from (SWF log, sacct, the collector). Times are
 * Unix seconds; unknown quantities are `undefined`.
 */
export type HistoryJob = {
  id: string;
  submitTime: number;
  startTime: number;
  endTime: number;
  user: string;
  group?: string;
  /** Executable or application name/id, the strongest hint of what the job will do. */
  executable?: string;
  queue?: string;
  partition?: string;
  requested: JobQuantities;
  /** What the job really used (peaks); for killed jobs only a lower bound of what it needed. */
  used: JobQuantities;
  outcome: JobOutcomeKind;
};

/** How a job ended. Anything but `completed` makes its usage a lower bound (censored). */
export type JobOutcomeKind = "completed" | "failed" | "cancelled" | "oom" | "timeout";

/** The resources Jobsight predicts, in their base units. */
export type JobQuantities = {
  memoryBytes?: number;
  cores?: number;
  gpus?: number;
  gpuMemoryBytes?: number;
  walltimeSeconds?: number;
};

/** Key of {@link JobQuantities} that holds each resource. */
export const RESOURCE_FIELDS: Record<ResourceName, keyof JobQuantities> = {
  memory: "memoryBytes",
  cores: "cores",
  gpus: "gpus",
  gpuMemory: "gpuMemoryBytes",
  walltime: "walltimeSeconds",
};
