import {
  type JobRecord,
  type JobState,
  type JobStep,
  killedForMemory,
  type ResourceRequest,
} from "@jobsight/schemas";

/** A job as sacct reports it, whatever the format (`--json` of any version, `--parsable2`). */
export type SacctJob = {
  /** `1234`, or `1234_7` for an array task. */
  jobId: string;
  arrayJobId?: string;
  arrayTaskId?: number;
  cluster?: string;
  user?: string;
  account?: string;
  partition?: string;
  qos?: string;
  name?: string;
  /** SLURM state word: COMPLETED, FAILED, CANCELLED, OUT_OF_MEMORY, TIMEOUT, RUNNING, … */
  state: string;
  reason?: string;
  exitCode?: number;
  signal?: number;
  /** Unix seconds. */
  submit?: number;
  start?: number;
  end?: number;
  elapsedSeconds?: number;
  limitSeconds?: number;
  cpuSeconds?: number;
  requested: ResourceRequest;
  allocated: ResourceRequest;
  nodes: string[];
  steps: SacctStep[];
};

/** One step of a sacct job. */
export type SacctStep = {
  /** `batch`, `extern`, `0`, … (without the job id). */
  id: string;
  state?: string;
  exitCode?: number;
  signal?: number;
  maxRssBytes?: number;
  elapsedSeconds?: number;
};

const TERMINAL: Record<string, JobState> = {
  COMPLETED: "COMPLETED",
  FAILED: "FAILED",
  OUT_OF_MEMORY: "OUT_OF_MEMORY",
  TIMEOUT: "TIMEOUT",
  DEADLINE: "TIMEOUT",
  CANCELLED: "CANCELLED",
  NODE_FAIL: "NODE_FAIL",
  BOOT_FAIL: "NODE_FAIL",
  PREEMPTED: "PREEMPTED",
};

/** The JobState of a SLURM state word (`CANCELLED by 0` → CANCELLED); `undefined` while not ended. */
export function slurmState(state: string | undefined): JobState | undefined {
  if (!state) return undefined;
  return TERMINAL[state.trim().split(/\s+/)[0].toUpperCase()];
}

const iso = (seconds: number | undefined) =>
  seconds !== undefined && seconds > 0
    ? new Date(seconds * 1000).toISOString().replace(".000Z", "Z")
    : undefined;

function defined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

/**
 * Maps a sacct job to a {@link JobRecord} (source `sacct-import`).
 *
 * The traps of real SLURM output are handled here: an over-memory kill reported as FAILED or
 * CANCELLED with signal 9 becomes OUT_OF_MEMORY (per step too); and an exit code of 0 on a FAILED
 * job without a signal is dropped, because SLURM 22.05's `--json` reports exit codes 1 and 3 as
 * `SUCCESS`/0 (`--parsable2` is right, and then passes `exitTrusted`).
 *
 * @example
 * ```ts
 * const record = sacctJobToRecord(job, { cluster: "hpc1" });
 * ```
 */
export function sacctJobToRecord(
  job: SacctJob,
  options: { cluster?: string; exitTrusted?: boolean } = {},
): JobRecord {
  const cluster = (options.cluster ?? job.cluster ?? "").toLowerCase();
  const memoryLimit = job.allocated.memoryBytes ?? job.requested.memoryBytes;
  const steps: JobStep[] = job.steps.map((s) => {
    let state = slurmState(s.state);
    if (state && state !== "COMPLETED" && killedForMemory(s.signal, s.maxRssBytes, memoryLimit))
      state = "OUT_OF_MEMORY";
    return defined({
      stepId: s.id,
      state,
      exitCode: s.exitCode,
      signal: s.signal,
      maxRssBytes: s.maxRssBytes,
      elapsedSeconds: s.elapsedSeconds,
    });
  });
  const peakRss = job.steps.reduce<number | undefined>(
    (max, s) =>
      s.maxRssBytes !== undefined && (max === undefined || s.maxRssBytes > max) ? s.maxRssBytes : max,
    undefined,
  );
  let state = slurmState(job.state);
  const batch = job.steps.find((s) => s.id === "batch");
  const signal = job.signal;
  // The job's own exit status may not carry the kill; its batch step's does.
  const killSignal = signal ?? batch?.signal;
  if (
    (state === "FAILED" || state === "CANCELLED") &&
    killedForMemory(killSignal, batch?.maxRssBytes ?? peakRss, memoryLimit)
  ) {
    state = "OUT_OF_MEMORY";
  }
  const phase = state && job.end ? "ended" : job.start ? "started" : "submitted";
  const submittedAt = iso(job.submit) ?? iso(job.start) ?? iso(job.end);
  const record: JobRecord = {
    cluster,
    jobId: job.jobId,
    phase,
    source: "sacct-import",
    spec: defined({
      cluster,
      scheduler: "slurm" as const,
      user: job.user ?? "",
      account: job.account || undefined,
      partition: job.partition || undefined,
      qos: job.qos || undefined,
      jobName: job.name || undefined,
      array: job.arrayJobId ? defined({ arrayJobId: job.arrayJobId, taskId: job.arrayTaskId }) : undefined,
      requested: defined({ ...job.requested, walltimeSeconds: job.limitSeconds }),
      submitTime: submittedAt,
    }),
    submittedAt: submittedAt ?? "",
  };
  const startedAt = iso(job.start);
  if (startedAt) record.startedAt = startedAt;
  if (phase === "ended") {
    record.endedAt = iso(job.end);
    const exitTrusted =
      options.exitTrusted ??
      !(slurmState(job.state) === "FAILED" && job.exitCode === 0 && signal === undefined);
    record.outcome = defined({
      state: state!,
      exitCode: exitTrusted ? job.exitCode : undefined,
      signal: signal ?? (state === "OUT_OF_MEMORY" ? killSignal : undefined),
      reason: job.reason && job.reason !== "None" ? job.reason.slice(0, 1024) : undefined,
    });
  }
  if (job.nodes.length > 0) record.nodes = job.nodes;
  if (Object.keys(job.allocated).length > 0) record.allocated = defined({ ...job.allocated });
  const ran = job.start !== undefined && job.start > 0;
  const peaks = defined({
    memoryBytes: peakRss,
    runTimeSeconds: ran && phase === "ended" ? job.elapsedSeconds : undefined,
    cpuTimeSeconds: ran ? job.cpuSeconds : undefined,
    coresUsed:
      ran && job.cpuSeconds !== undefined && job.elapsedSeconds
        ? job.cpuSeconds / job.elapsedSeconds
        : undefined,
  });
  if (Object.keys(peaks).length > 0) record.peaks = peaks;
  if (steps.length > 0) record.steps = steps.slice(0, 1024);
  return record;
}
