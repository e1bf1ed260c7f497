import type { JobSpec, Policy, ResourceName, ResourcePrediction } from "@jobsight/schemas";
import type { LimitingRule } from "../../data-plane/stores/policy-audit-record.js";
import { type ApplyPolicyOptions, applyPolicy, type HeldReason } from "./apply-policy.js";
import { limitingRule } from "./policy-audit.js";
import { RESOURCE_NAMES } from "./policy-bounds.js";

/** A past job and the prediction recorded for it when it was submitted. */
export type SimulatedJob = { spec: JobSpec; resources: readonly ResourcePrediction[] };

/** What a policy would have done to one resource over a set of past jobs. */
export type ResourceSimulation = {
  resource: ResourceName;
  /** Jobs with a prediction of this resource. */
  jobs: number;
  /** Jobs whose value would have differed from the request. */
  changed: number;
  raised: number;
  lowered: number;
  /** Jobs that asked for nothing and would have been given a value. */
  filled: number;
  /** Jobs where the recommendation was not used, by reason. */
  held: Partial<Record<HeldReason, number>>;
  /** Changed jobs by the rule that limited the value. */
  limitedBy: Partial<Record<LimitingRule, number>>;
  /** Sum of the requests of the jobs that made one. */
  requestedTotal: number;
  /** Sum of what those same jobs would have been given. */
  appliedTotal: number;
};

/** The effect of a policy over a set of past jobs. */
export type PolicySimulation = { policy: string; jobs: number; resources: ResourceSimulation[] };

const empty = (resource: ResourceName): ResourceSimulation => ({
  resource,
  jobs: 0,
  changed: 0,
  raised: 0,
  lowered: 0,
  filled: 0,
  held: {},
  limitedBy: {},
  requestedTotal: 0,
  appliedTotal: 0,
});

/**
 * "What would this policy have changed last week": apply it, as if live, to past jobs and their
 * recorded predictions, and count per resource what changes and by how much in total.
 *
 * @example
 * ```ts
 * const sim = simulatePolicy(lastWeek, policy);
 * const memory = sim.resources.find((r) => r.resource === "memory");
 * console.log(`${memory.changed}/${memory.jobs} jobs, ${memory.requestedTotal} → ${memory.appliedTotal} bytes`);
 * ```
 */
export function simulatePolicy(
  jobs: readonly SimulatedJob[],
  policy: Policy,
  options: Omit<ApplyPolicyOptions, "mode"> = {},
): PolicySimulation {
  const totals = new Map<ResourceName, ResourceSimulation>(RESOURCE_NAMES.map((r) => [r, empty(r)]));
  for (const job of jobs) {
    const decision = applyPolicy(job.resources, job.spec, policy, { ...options, mode: "live" });
    for (const r of decision.resources) {
      const t = totals.get(r.resource)!;
      t.jobs += 1;
      if (r.held) t.held[r.held] = (t.held[r.held] ?? 0) + 1;
      if (r.requested !== undefined) {
        t.requestedTotal += r.requested;
        t.appliedTotal += r.value ?? r.requested;
      }
      if (!r.changed || r.value === undefined) continue;
      t.changed += 1;
      if (r.requested === undefined) t.filled += 1;
      else if (r.value > r.requested) t.raised += 1;
      else t.lowered += 1;
      const rule = limitingRule(r.adjustments);
      if (rule) t.limitedBy[rule] = (t.limitedBy[rule] ?? 0) + 1;
    }
  }
  return {
    policy: policy.name,
    jobs: jobs.length,
    resources: [...totals.values()].filter((t) => t.jobs > 0),
  };
}
