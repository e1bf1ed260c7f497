import { type Static, Type } from "@sinclair/typebox";
import { Bytes, ClusterId, IdempotencyKey, Name, Timestamp } from "../common.js";
import { JobSpec, ResourceRequest } from "./job-spec.js";

/** How a job ended. `OUT_OF_MEMORY` and `TIMEOUT` are censored outcomes: the job needed more than it had. */
export const JobState = Type.Union(
  [
    Type.Literal("COMPLETED"),
    Type.Literal("FAILED"),
    Type.Literal("OUT_OF_MEMORY"),
    Type.Literal("TIMEOUT"),
    Type.Literal("CANCELLED"),
    Type.Literal("NODE_FAIL"),
    Type.Literal("PREEMPTED"),
  ],
  { description: "Final state of a job." },
);
export type JobState = Static<typeof JobState>;

/** Where a job is in its life. */
export const JobPhase = Type.Union(
  [Type.Literal("submitted"), Type.Literal("started"), Type.Literal("ended")],
  {
    description: "Lifecycle phase: submitted (waiting), started (running), ended.",
  },
);
export type JobPhase = Static<typeof JobPhase>;

/** The end of a job's stderr file, read after the job ended; it goes only to the site's own server. */
export const StderrTail = Type.Object(
  {
    path: Name("The file it was read from, placeholders such as %j expanded.", 4096),
    text: Type.String({
      maxLength: 8192,
      description: "Its last bytes (at most 8 KiB) as UTF-8, whole lines.",
    }),
    truncated: Type.Boolean({ description: "True when the file was longer than the text." }),
  },
  { additionalProperties: false, description: "The end of a job's stderr file." },
);
export type StderrTail = Static<typeof StderrTail>;

/** How a job ended. */
export const JobOutcome = Type.Object(
  {
    state: JobState,
    exitCode: Type.Optional(Type.Integer({ minimum: 0, maximum: 255, description: "Process exit code." })),
    signal: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 64, description: "Signal that killed the job, e.g. 9." }),
    ),
    reason: Type.Optional(Name("Scheduler's reason text, e.g. OOMKilled or the SLURM reason.", 1024)),
    derivedExitCode: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 255,
        description: "Highest exit code of the job's steps (SLURM DerivedExitCode), when not 0.",
      }),
    ),
    derivedSignal: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 64, description: "Signal of SLURM's DerivedExitCode, e.g. 11." }),
    ),
    stderrTail: Type.Optional(StderrTail),
  },
  { additionalProperties: false, description: "How a job ended." },
);
export type JobOutcome = Static<typeof JobOutcome>;

/** What a job was measured to use at its peak. */
export const JobPeaks = Type.Object(
  {
    memoryBytes: Type.Optional(Bytes("Peak memory of the job")),
    coresUsed: Type.Optional(
      Type.Number({ minimum: 0, description: "Average cores in use over the run (CPU time / run time)." }),
    ),
    gpusUsed: Type.Optional(Type.Integer({ minimum: 0, description: "GPUs that did any work." })),
    gpuMemoryBytes: Type.Optional(Bytes("Peak GPU memory over all the job's GPUs")),
    runTimeSeconds: Type.Optional(
      Type.Number({ minimum: 0, description: "Wall-clock run time in seconds." }),
    ),
    cpuTimeSeconds: Type.Optional(Type.Number({ minimum: 0, description: "Total CPU time in seconds." })),
  },
  { additionalProperties: false, description: "Measured peaks of a job." },
);
export type JobPeaks = Static<typeof JobPeaks>;

/** One step of a job (a SLURM step such as `batch`, `extern` or `0`; a Kubernetes container). */
export const JobStep = Type.Object(
  {
    stepId: Name("Step id: batch, extern, interactive, 0, 1, … or a container name.", 128),
    state: Type.Optional(JobState),
    exitCode: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 255, description: "Exit code of the step." }),
    ),
    signal: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 64, description: "Signal that ended the step." }),
    ),
    maxRssBytes: Type.Optional(Bytes("Largest resident set of the step (SLURM MaxRSS)")),
    elapsedSeconds: Type.Optional(Type.Number({ minimum: 0, description: "Step run time in seconds." })),
    memoryLimitBytes: Type.Optional(Bytes("Memory limit of the step")),
  },
  { additionalProperties: false, description: "One step of a job." },
);
export type JobStep = Static<typeof JobStep>;

/** Where a record came from. */
export const RecordSource = Type.Union(
  [
    Type.Literal("collector"),
    Type.Literal("slurm-controller"),
    Type.Literal("kubernetes"),
    Type.Literal("sacct-import"),
    Type.Literal("swf-import"),
  ],
  { description: "What produced the record." },
);

/**
 * A job's lifecycle record: sent when it is submitted, started and ended; later records of the same
 * job (cluster, jobId) update earlier ones.
 *
 * @example
 * ```ts
 * const ended: JobRecord = {
 *   cluster: "hpc1", jobId: "4242", phase: "ended", source: "slurm-controller",
 *   spec: { cluster: "hpc1", scheduler: "slurm", user: "alice", requested: { memoryBytes: 2 ** 30 } },
 *   submittedAt: "2026-12-01T10:00:00Z", startedAt: "2026-12-01T10:01:00Z", endedAt: "2026-12-01T11:00:00Z",
 *   outcome: { state: "OUT_OF_MEMORY", signal: 9 }, peaks: { memoryBytes: 2 ** 30 },
 * };
 * ```
 */
export const JobRecord = Type.Object(
  {
    cluster: ClusterId,
    jobId: Name("The scheduler's job id (SLURM 1234 or 1234_7; Kubernetes namespace/pod-name).", 256),
    phase: JobPhase,
    source: RecordSource,
    spec: JobSpec,
    submittedAt: Timestamp,
    startedAt: Type.Optional(Timestamp),
    endedAt: Type.Optional(Timestamp),
    outcome: Type.Optional(JobOutcome),
    nodes: Type.Optional(
      Type.Array(Name("Node name.", 256), { maxItems: 4096, description: "Nodes the job ran on." }),
    ),
    containerIds: Type.Optional(
      Type.Array(Type.String({ pattern: "^[0-9a-f]{12,128}$", maxLength: 128 }), {
        maxItems: 256,
        description:
          "Container runtime ids of the job's containers (Kubernetes: `status.*containerStatuses[].containerID` of the pod's containers, init and ephemeral containers, current and previous run), lower-case hex without the runtime prefix (`containerd://`, `cri-o://`, `docker://`), so that a reading naming only `container.id` can be given to the job.",
      }),
    ),
    allocated: Type.Optional(ResourceRequest),
    peaks: Type.Optional(JobPeaks),
    steps: Type.Optional(Type.Array(JobStep, { maxItems: 1024, description: "The job's steps." })),
    idempotencyKey: Type.Optional(IdempotencyKey),
  },
  { $id: "JobRecord", additionalProperties: false, description: "A job's lifecycle record and outcome." },
);
export type JobRecord = Static<typeof JobRecord>;
