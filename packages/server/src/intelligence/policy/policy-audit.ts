import type { PolicyAdjustment } from "@jobsight/schemas";
import type {
  LimitingRule,
  PolicyActor,
  PolicyAuditRecord,
} from "../../data-plane/stores/policy-audit-record.js";
import type { PolicyDecision } from "./apply-policy.js";

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
