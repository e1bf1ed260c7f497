import type { PolicyAdjustment, PredictionMode } from "@jobsight/schemas";
import type { PolicyDecision } from "./apply-policy.js";
import type { ResourceName } from "./policy-bounds.js";

/** Which integration applied (or, in shadow mode, would have applied) a change. */
export type PolicyActor = "kubernetes-admission" | "slurm-cli-filter" | "slurm-job-submit" | "api";

/** The rule that set a value last, i.e. the one that limited it. */
export type LimitingRule = PolicyAdjustment["rule"];

/**
 * One change of one resource of one job, as applied under a policy: who, what, before, after,
 * the model version and the rule that limited it.
 */
export type PolicyAuditRecord = {
  /** Assigned by the store. */
  id?: string;
  /** When the change was decided (RFC 3339). */
  recordedAt: string;
  cluster: string;
  actor: PolicyActor;
  /** The user whose job it is. */
  user: string;
  /** Who submitted it, when that is someone else (a Kubernetes controller, root). */
  submittedBy?: string;
  /** The job as the scheduler names it, e.g. `Pod ml/train-x container=main` or `sbatch train.sh`. */
  job: string;
  resource: ResourceName;
  /** The request; null when the job asked for nothing. */
  before: number | null;
  after: number;
  modelVersion: string;
  /** Name of the policy. */
  policy: string;
  /** The last rule that moved the value; null when the recommendation went through untouched. */
  limitedBy: LimitingRule | null;
  adjustments: PolicyAdjustment[];
  /** `shadow`: recorded only, nothing was changed. */
  mode: PredictionMode;
  predictionId?: string;
};

/** What the audit needs to know beyond the decision itself. */
export type AuditContext = {
  cluster: string;
  actor: PolicyActor;
  user: string;
  submittedBy?: string;
  job: string;
  modelVersion: string;
  policy: string;
  predictionId?: string;
  /** @default now */
  at?: Date;
};

/**
 * The rule that limited a value: the last one that moved it. Rounding only counts when no rule of
 * the policy did anything else, since every value is rounded.
 */
export function limitingRule(adjustments: readonly PolicyAdjustment[]): LimitingRule | null {
  const rules = adjustments.map((a) => a.rule);
  const policyRules = rules.filter((r) => r !== "rounding");
  return policyRules.at(-1) ?? rules.at(-1) ?? null;
}

/**
 * The audit records of a decision: one per resource whose value differs from the request.
 *
 * @example
 * ```ts
 * const records = auditRecordsFor(decision, { cluster: "hpc1", actor: "slurm-cli-filter", user: "alice",
 *   job: "sbatch train.sh", modelVersion: "m-42", policy: "default" });
 * await auditStore.record(records);
 * ```
 */
export function auditRecordsFor(decision: PolicyDecision, context: AuditContext): PolicyAuditRecord[] {
  const recordedAt = (context.at ?? new Date()).toISOString();
  return decision.resources
    .filter((r) => r.changed && r.value !== undefined)
    .map((r) => {
      const record: PolicyAuditRecord = {
        recordedAt,
        cluster: context.cluster,
        actor: context.actor,
        user: context.user,
        job: context.job,
        resource: r.resource,
        before: r.requested ?? null,
        after: r.value!,
        modelVersion: context.modelVersion,
        policy: context.policy,
        limitedBy: limitingRule(r.adjustments),
        adjustments: r.adjustments,
        mode: decision.mode,
      };
      if (context.submittedBy !== undefined && context.submittedBy !== context.user)
        record.submittedBy = context.submittedBy;
      if (context.predictionId !== undefined) record.predictionId = context.predictionId;
      return record;
    });
}

/** Where audit records go; the PostgreSQL store, or anything else that keeps them. */
export type PolicyAuditSink = {
  record(records: readonly PolicyAuditRecord[]): Promise<void>;
};
