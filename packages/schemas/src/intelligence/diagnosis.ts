import { type Static, Type } from "@sinclair/typebox";
import { ClusterId, Name, Timestamp } from "../common.js";
import { JobState } from "../jobs/job-record.js";

/** A window of time that evidence covers. */
export const TimeWindow = Type.Object(
  { start: Timestamp, end: Timestamp },
  { additionalProperties: false, description: "A window of time, start inclusive, end inclusive." },
);

/** A pointer at one piece of stored evidence, structured for a UI and readable by a person. */
export const EvidenceRef = Type.Object(
  {
    kind: Type.Union(
      [
        Type.Literal("metric"),
        Type.Literal("event"),
        Type.Literal("log"),
        Type.Literal("scheduler"),
        Type.Literal("process"),
        Type.Literal("history"),
      ],
      {
        description:
          "metric: a time series; event: a node event; log: a log line; scheduler: a field of the job record; process: a process snapshot; history: past jobs.",
      },
    ),
    source: Name(
      "Where it was read, e.g. cgroup:memory.stat, nvidia-smi, kmsg, sacct, squeue, pod.status, proc:/proc/<pid>/status.",
      128,
    ),
    field: Type.Optional(
      Name(
        "The field of the source as the source names it, e.g. anon (memory.stat), usage_usec (cpu.stat), utilization.gpu (nvidia-smi), VmRSS (/proc/<pid>/status), MaxRSS (sacct).",
        128,
      ),
    ),
    metric: Type.Optional(Name("Metric or field name, e.g. memory.peakBytes or outcome.state.", 128)),
    node: Type.Optional(Name("Node the evidence comes from.", 256)),
    step: Type.Optional(Name("Job step or container the evidence comes from.", 128)),
    gpuIndex: Type.Optional(
      Type.Integer({ minimum: 0, description: "GPU index on the node, for GPU evidence." }),
    ),
    window: Type.Optional(TimeWindow),
    values: Type.Optional(
      Type.Array(Type.Number(), { maxItems: 64, description: "The values that matter." }),
    ),
    textValue: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: "A stored value that is not a number, verbatim, e.g. OUT_OF_MEMORY for outcome.state.",
      }),
    ),
    unit: Type.Optional(Name("Unit of the values (UCUM).", 32)),
    line: Type.Optional(Type.String({ maxLength: 4096, description: "The log line, verbatim." })),
    text: Type.String({ minLength: 1, maxLength: 2048, description: "The evidence in words." }),
  },
  { additionalProperties: false, description: "A reference to stored evidence." },
);
export type EvidenceRef = Static<typeof EvidenceRef>;

/** The kinds of findings a diagnosis can make. */
export const FindingKind = Type.Union(
  [
    Type.Literal("oom_kill"),
    Type.Literal("gpu_fault_application"),
    Type.Literal("gpu_fault_hardware"),
    Type.Literal("stalled_data_loader"),
    Type.Literal("gpus_unused"),
    Type.Literal("gpu_underutilised"),
    Type.Literal("gpu_memory_overreserved"),
    Type.Literal("timeout"),
    Type.Literal("walltime_overrequested"),
    Type.Literal("cpu_low_efficiency"),
    Type.Literal("cpu_oversubscribed"),
    Type.Literal("cpu_throttled"),
    Type.Literal("memory_overrequested"),
    Type.Literal("node_failure"),
    Type.Literal("preempted"),
    Type.Literal("cancelled"),
    Type.Literal("job_error"),
  ],
  { description: "What a finding is about." },
);
export type FindingKind = Static<typeof FindingKind>;

/** One claim of a diagnosis, with the evidence it rests on. */
export const Finding = Type.Object(
  {
    kind: FindingKind,
    severity: Type.Union([Type.Literal("error"), Type.Literal("warning"), Type.Literal("info")], {
      description: "error: explains a failure; warning: wasted or at-risk resources; info: context.",
    }),
    claim: Type.String({ minLength: 1, maxLength: 2048, description: "The claim, in one or two sentences." }),
    confidence: Type.Number({ minimum: 0, maximum: 1, description: "How sure the rule is of the claim." }),
    rank: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "Position in the diagnosis, 1 first: causes before the symptoms they cause (a hardware fault or node failure, then an out-of-memory kill, then the timeout or error that followed, then how resources were used).",
      }),
    ),
    // The span the claim covers: the samples or events it rests on, or the job's run.
    window: Type.Optional(TimeWindow),
    evidence: Type.Array(EvidenceRef, {
      minItems: 1,
      description: "Every claim cites at least one piece of evidence.",
    }),
  },
  {
    additionalProperties: false,
    description: "One claim with its evidence, its rank and the span of time it covers (window).",
  },
);
export type Finding = Static<typeof Finding>;

/** A source that would have mattered and could not be seen. */
export const Unseen = Type.Object(
  {
    source: Name("The source, e.g. gpu-metrics, kernel-log, usage-samples, final-reading.", 64),
    reason: Type.String({
      minLength: 1,
      maxLength: 1024,
      description:
        "Why it was not seen and what it would have told, including a claim not judged for want of data (e.g. a run too short to judge its CPU use).",
    }),
    window: Type.Optional(TimeWindow),
  },
  { additionalProperties: false, description: "Something that could not be observed." },
);
export type Unseen = Static<typeof Unseen>;

/**
 * Why a job failed or ran badly, from what was observed.
 *
 * @example
 * ```ts
 * const d: Diagnosis = {
 *   cluster: "hpc1", jobId: "4242", generatedAt: "2026-12-02T10:00:00Z", state: "OUT_OF_MEMORY",
 *   causeDetermined: true, summary: "Killed for memory.", findings: [], unseen: [], agentPrompt: "…",
 * };
 * ```
 */
export const Diagnosis = Type.Object(
  {
    cluster: ClusterId,
    jobId: Name("The job.", 256),
    generatedAt: Timestamp,
    state: Type.Optional(JobState),
    causeDetermined: Type.Boolean({ description: "False when the job failed and no finding explains why." }),
    summary: Type.String({ maxLength: 4096, description: "One paragraph built from the findings only." }),
    findings: Type.Array(Finding, {
      description: "Claims, causes before the symptoms they caused (see rank), then the more severe first.",
    }),
    unseen: Type.Array(Unseen, { description: "Every source that mattered and was missing." }),
    agentPrompt: Type.String({ description: "A self-contained prompt to paste into a coding agent." }),
    prose: Type.Optional(
      Type.String({ description: "Optional language-model rephrasing of the findings (adds no claims)." }),
    ),
  },
  { $id: "Diagnosis", additionalProperties: false, description: "Why a job failed or ran badly." },
);
export type Diagnosis = Static<typeof Diagnosis>;
