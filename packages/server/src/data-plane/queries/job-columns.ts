import type { JobRecord } from "@jobsight/schemas";
import type { CopyValue } from "../copy/copy-text.js";

/** Order of the lifecycle phases: a record never replaces one of a later phase. */
export const PHASE_RANK: Record<JobRecord["phase"], number> = { submitted: 0, started: 1, ended: 2 };

/** The columns of `jobs` derived from a record, in the order of {@link jobColumnValues}. */
export const JOB_COLUMNS = [
  "cluster",
  "job_id",
  "phase",
  "phase_rank",
  "source",
  "user_name",
  "account",
  "partition",
  "executable",
  "state",
  "submitted_at",
  "started_at",
  "ended_at",
  "requested_memory_bytes",
  "requested_cores",
  "requested_gpus",
  "requested_walltime_seconds",
  "peak_memory_bytes",
  "run_time_seconds",
  "record",
  "idempotency_key",
] as const;

/** The column values of a record (the record itself goes whole into `record`). */
export function jobColumnValues(r: JobRecord): CopyValue[] {
  const requested = r.spec.requested;
  return [
    r.cluster,
    r.jobId,
    r.phase,
    PHASE_RANK[r.phase],
    r.source,
    r.spec.user,
    r.spec.account,
    r.spec.partition,
    r.spec.executable,
    r.outcome?.state,
    r.submittedAt,
    r.startedAt,
    r.endedAt,
    requested.memoryBytes,
    requested.cores,
    requested.gpus,
    requested.walltimeSeconds,
    r.peaks?.memoryBytes ?? maxStepRss(r),
    r.peaks?.runTimeSeconds ?? runTime(r),
    r,
    r.idempotencyKey,
  ];
}

function maxStepRss(r: JobRecord): number | undefined {
  let max: number | undefined;
  for (const step of r.steps ?? []) {
    if (step.maxRssBytes !== undefined && (max === undefined || step.maxRssBytes > max))
      max = step.maxRssBytes;
  }
  return max;
}

function runTime(r: JobRecord): number | undefined {
  if (!r.startedAt || !r.endedAt) return undefined;
  const seconds = (Date.parse(r.endedAt) - Date.parse(r.startedAt)) / 1000;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
