import type { JobRecord, NodeEvent, UsageSample } from "@jobsight/schemas";

/** Run times of earlier jobs of the same application, for judging a timeout. */
export interface RunTimeHistory {
  /** Wall-clock run times (s) of earlier completed runs of the same application, any order. */
  readonly runTimesSeconds: readonly number[];
  /** How the runs were grouped, in words a person can read, e.g. `user=alice,executable=train.py`. */
  readonly group: string;
}

/** One line of the job's own output or of the scheduler's messages about it. */
export interface JobLogLine {
  /**
   * Where the line was read, e.g. `slurm-output` (the job's stdout/stderr file, where slurmstepd
   * writes "exceeded memory limit"), `stderr`, `container-log`.
   */
  readonly source: string;
  /** The line, verbatim. */
  readonly line: string;
  /** When it was written, if known (RFC 3339). */
  readonly time?: string;
}

/**
 * What the caller knows about which sources could be read. Each field overrides what the diagnosis
 * would otherwise infer from the data; leave a field unset to let the data speak.
 */
export interface SourcesSeen {
  /**
   * false: no GPU metrics were collected for the job (no nvidia-smi, no collector on the node).
   * Unset: inferred per node from the samples' `gpus` and from `source_unavailable` events (source `gpu`).
   */
  readonly gpuMetrics?: boolean;
  /**
   * false: the kernel log (where OOM kills and GPU Xids are read) could not be read on the job's
   * nodes; true: it was read. Unset: unreadable only on nodes with a `source_unavailable` event
   * (source `kmsg`), since the collector reports one whenever it cannot read the log, and one per
   * job while it does not read it (`--kmsg false` or unreadable).
   */
  readonly kernelLog?: boolean;
  /**
   * Whether the collector took its last reading when the job ended (the epilog reading).
   * Unset: true when any sample has `final: true`.
   */
  readonly finalReading?: boolean;
}

/**
 * Everything a diagnosis looks at. The diagnosis is a pure function of this input: storage gathers
 * it, the rules read it, and every piece of evidence points back into it.
 *
 * @example
 * ```ts
 * const input: DiagnosisInput = { record, samples, events, sourcesSeen: {} };
 * const d = diagnose(input);
 * ```
 */
export interface DiagnosisInput {
  /** The job's latest lifecycle record (the `ended` one once the job is over). */
  readonly record: JobRecord;
  /**
   * Every usage sample of the job, from every node and step, any order: whole-job samples have no
   * `step`; step samples are used only to tell which step hit a limit.
   */
  readonly samples: readonly UsageSample[];
  /**
   * Node events on the job's nodes around the job's run (GPU Xids, OOM kills, unavailable sources),
   * whether or not the collector could attribute them to the job; the rules attribute them.
   */
  readonly events: readonly NodeEvent[];
  /** Run times of earlier runs of the same application; absent when storage has none. */
  readonly history?: RunTimeHistory;
  /** Lines of the job's output or scheduler messages, verbatim, when they were collected. */
  readonly logLines?: readonly JobLogLine[];
  /** The job's submission (sbatch script or Kubernetes manifest), verbatim, for the agent prompt. */
  readonly submission?: string;
  /** What the caller knows about which sources were readable. */
  readonly sourcesSeen: SourcesSeen;
}
