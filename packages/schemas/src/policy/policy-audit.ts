import { type Static, Type } from "@sinclair/typebox";
import { ClusterId, ResourceName, Timestamp } from "../common.js";
import { PolicyAdjustment } from "../intelligence/prediction.js";

/**
 * One change of one resource of one job, applied (or, in shadow mode, only recorded) by a
 * scheduler integration under the platform team's policy: who, what, before, after, the model
 * version and the rule that limited it.
 *
 * @example
 * ```ts
 * const record: PolicyAuditRecord = {
 *   id: "17", recordedAt: "2026-12-02T16:30:00Z", cluster: "hpc1", actor: "slurm-cli-filter",
 *   user: "alice", job: "train", resource: "memory", before: 17179869184, after: 8589934592,
 *   modelVersion: "m-3", policy: "default", limitedBy: "max_decrease", adjustments: [], mode: "live",
 * };
 * ```
 */
export const PolicyAuditRecord = Type.Object(
  {
    id: Type.Optional(Type.String()),
    recordedAt: Timestamp,
    cluster: Type.String(),
    actor: Type.Union(
      [
        Type.Literal("kubernetes-admission"),
        Type.Literal("slurm-cli-filter"),
        Type.Literal("slurm-job-submit"),
        Type.Literal("api"),
      ],
      { description: "The integration that applied the change." },
    ),
    user: Type.String({ description: "The user whose job it is." }),
    submittedBy: Type.Optional(Type.String({ description: "Who submitted it, when someone else." })),
    job: Type.String({ description: "The job as the scheduler names it." }),
    resource: ResourceName,
    before: Type.Union([Type.Number(), Type.Null()], { description: "The request; null when none." }),
    after: Type.Number({ description: "The value given to the scheduler." }),
    modelVersion: Type.String(),
    policy: Type.String({ description: "Name of the policy." }),
    limitedBy: Type.Union([PolicyAdjustment.properties.rule, Type.Null()], {
      description: "The last rule that moved the value; null when the recommendation went through.",
    }),
    adjustments: Type.Array(PolicyAdjustment),
    mode: Type.Union([Type.Literal("live"), Type.Literal("shadow")], {
      description: "shadow: recorded only, nothing was changed.",
    }),
    predictionId: Type.Optional(Type.String()),
  },
  {
    $id: "PolicyAuditRecord",
    additionalProperties: false,
    description: "One change of one resource of one job applied under the policy.",
  },
);
export type PolicyAuditRecord = Static<typeof PolicyAuditRecord>;

/** Query of `GET /v1/policy/audit`. */
export const PolicyAuditQuery = Type.Object(
  {
    cluster: Type.Optional(ClusterId),
    user: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    from: Type.Optional(Timestamp),
    to: Type.Optional(Timestamp),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  },
  { additionalProperties: false },
);
export type PolicyAuditQuery = Static<typeof PolicyAuditQuery>;

/** One page of the audit, newest first. */
export const PolicyAuditPage = Type.Object(
  {
    items: Type.Array(PolicyAuditRecord),
    nextCursor: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: "PolicyAuditPage", additionalProperties: false, description: "One page of the policy audit." },
);
export type PolicyAuditPage = Static<typeof PolicyAuditPage>;
