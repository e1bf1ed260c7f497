import { type Static, Type } from "@sinclair/typebox";
import { ClusterId, Name, Timestamp } from "../common.js";
import { EvidenceRef } from "./diagnosis.js";

/** The live rules the server evaluates over running jobs. */
export const AlertRule = Type.Union(
  [
    Type.Literal("gpus-idle"),
    Type.Literal("memory-near-limit"),
    Type.Literal("cores-idle"),
    Type.Literal("walltime-overrun"),
    Type.Literal("repeated-oom"),
  ],
  {
    description:
      "gpus-idle: every GPU of the job below the utilisation threshold for the idle period; memory-near-limit: memory close to its limit and rising, the limit projected within minutes; cores-idle: CPU use below the threshold of the reserved cores for the idle period; walltime-overrun: at the progress the job reports, it ends after its walltime; repeated-oom: the user's jobs of the same shape were OOM-killed repeatedly in the window.",
  },
);
export type AlertRule = Static<typeof AlertRule>;

/** Whether an alert still holds. */
export const AlertState = Type.Union([Type.Literal("firing"), Type.Literal("resolved")], {
  description: "firing: the rule held at the last evaluation; resolved: it no longer does, or the job ended.",
});
export type AlertState = Static<typeof AlertState>;

/**
 * One live alert about a running job: one per job and rule, updated at each evaluation while it
 * holds (not one per evaluation).
 *
 * @example
 * ```ts
 * const a: Alert = {
 *   id: "2f1c…", cluster: "hpc1", jobId: "4242", user: "alice", rule: "gpus-idle", severity: "warning",
 *   state: "firing", firstSeen: "2026-12-02T10:00:00Z", lastSeen: "2026-12-02T10:30:00Z",
 *   message: "All 4 GPUs below 5% for 30 min.", evidence: [{ kind: "metric", source: "nvidia-smi", text: "…" }],
 * };
 * ```
 */
export const Alert = Type.Object(
  {
    id: Name("The alert's id (stable while the job and rule are the same).", 64),
    cluster: ClusterId,
    jobId: Name("The job.", 256),
    user: Name("Owner of the job.", 128),
    rule: AlertRule,
    severity: Type.Union([Type.Literal("critical"), Type.Literal("warning")], {
      description: "critical: the job is likely to fail soon; warning: reserved resources are going unused.",
    }),
    state: AlertState,
    firstSeen: Timestamp,
    lastSeen: Type.String({
      format: "date-time",
      description: "The last evaluation at which the rule held.",
    }),
    resolvedAt: Type.Optional(
      Type.String({ format: "date-time", description: "When the rule stopped holding (resolved alerts)." }),
    ),
    projectedAt: Type.Optional(
      Type.String({
        format: "date-time",
        description:
          "memory-near-limit: when memory reaches its limit at the recent rate of growth; walltime-overrun: when the job finishes at its recent rate of progress.",
      }),
    ),
    message: Type.String({ minLength: 1, maxLength: 2048, description: "What holds, in one sentence." }),
    evidence: Type.Array(EvidenceRef, {
      minItems: 1,
      maxItems: 64,
      description: "The samples the alert rests on, cited like a diagnosis's evidence.",
    }),
  },
  { additionalProperties: false, description: "A live alert about a running job." },
);
export type Alert = Static<typeof Alert>;

/** The answer of `GET /v1/alerts`. */
export const AlertList = Type.Object(
  {
    alerts: Type.Array(Alert, { description: "Alerts the caller may see, most recently seen first." }),
  },
  { $id: "AlertList", additionalProperties: false, description: "Live alerts." },
);
export type AlertList = Static<typeof AlertList>;

/** The query of `GET /v1/alerts`. */
export const AlertQuery = Type.Object(
  {
    cluster: Type.Optional(ClusterId),
    state: Type.Optional(AlertState),
    user: Type.Optional(Name("Only this user's jobs (a researcher sees only their own).", 128)),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: "Most alerts answered." }),
    ),
  },
  { additionalProperties: false },
);
export type AlertQuery = Static<typeof AlertQuery>;
