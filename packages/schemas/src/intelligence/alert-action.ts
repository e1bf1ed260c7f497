import { type Static, Type } from "@sinclair/typebox";
import { ClusterId, Name, Timestamp } from "../common.js";
import { AlertRule } from "./alert.js";
import { EvidenceRef } from "./diagnosis.js";

/** What the server did, or in dry-run would have done, about an alert. */
export const AlertActionKind = Type.Union([Type.Literal("cancel-job"), Type.Literal("hold-submission")], {
  description:
    "cancel-job: a running job whose GPUs stayed idle after the warning and the grace period (SLURM scancel, Kubernetes pod deletion); hold-submission: a repeat offender's next submission of the same shape, held for confirmation.",
});
export type AlertActionKind = Static<typeof AlertActionKind>;

/** How an action ended. */
export const AlertActionOutcome = Type.Union(
  [Type.Literal("dry-run"), Type.Literal("done"), Type.Literal("failed")],
  {
    description:
      "dry-run: only logged (alerts.actions.dryRun), nothing was done; done: the scheduler accepted it; failed: it was tried and refused or could not be sent (see detail).",
  },
);
export type AlertActionOutcome = Static<typeof AlertActionOutcome>;

/**
 * One entry of the audit log of actions under policy: what was done (or would have been, in
 * dry-run) to which job, on which alert's evidence.
 *
 * @example
 * ```ts
 * const a: AlertAction = {
 *   id: "7d0c…", at: "2026-12-02T11:15:00Z", cluster: "hpc1", jobId: "4242", user: "alice",
 *   kind: "cancel-job", rule: "gpus-idle", outcome: "dry-run", executor: "scancel",
 *   warnedAt: "2026-12-02T10:45:00Z", message: "Would cancel: GPUs idle 30 min after the warning.",
 *   evidence: [{ kind: "metric", source: "nvidia-smi", text: "GPU 0 at most 1% over 30 min" }],
 * };
 * ```
 */
export const AlertAction = Type.Object(
  {
    id: Name("The action's id.", 64),
    at: Timestamp,
    cluster: ClusterId,
    jobId: Name("The job acted on (for a hold, the submission's job id when known).", 256),
    user: Name("Owner of the job.", 128),
    kind: AlertActionKind,
    rule: AlertRule,
    alertId: Type.Optional(Name("The alert whose evidence the action rests on.", 64)),
    outcome: AlertActionOutcome,
    executor: Name("What carried it out: scancel, kubernetes or submit-filter.", 64),
    warnedAt: Type.Optional(
      Type.String({ format: "date-time", description: "When the warning (the alert) started firing." }),
    ),
    message: Type.String({ minLength: 1, maxLength: 2048, description: "What was done and why." }),
    detail: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: "The scheduler's answer: exit status, HTTP status, error.",
      }),
    ),
    evidence: Type.Array(EvidenceRef, {
      minItems: 1,
      maxItems: 64,
      description: "The evidence the action rests on, as the alert cited it.",
    }),
  },
  { additionalProperties: false, description: "One action under policy, or a dry-run decision." },
);
export type AlertAction = Static<typeof AlertAction>;

/** The answer of `GET /v1/alerts/actions`. */
export const AlertActionList = Type.Object(
  {
    actions: Type.Array(AlertAction, { description: "Actions the caller may see, newest first." }),
  },
  { $id: "AlertActionList", additionalProperties: false, description: "The audit log of actions." },
);
export type AlertActionList = Static<typeof AlertActionList>;

/** The query of `GET /v1/alerts/actions`. */
export const AlertActionQuery = Type.Object(
  {
    cluster: Type.Optional(ClusterId),
    user: Type.Optional(Name("Only this user's jobs (a researcher sees only their own).", 128)),
    jobId: Type.Optional(Name("Only this job.", 256)),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: "Most actions answered." }),
    ),
  },
  { additionalProperties: false },
);
export type AlertActionQuery = Static<typeof AlertActionQuery>;
