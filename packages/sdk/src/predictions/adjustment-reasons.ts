import type { PolicyAdjustment, ResourcePrediction } from "@jobsight/schemas";

/** One rule that moved a recommendation, and why, in the words a researcher reads. */
export type AdjustmentReason = {
  /** The resource whose value moved. */
  resource: ResourcePrediction["resource"];
  /** The rule, as the server names it. */
  rule: PolicyAdjustment["rule"];
  /** The value before the rule, in the resource's unit (bytes, cores, GPUs, seconds). */
  before: number;
  /** The value after it. */
  after: number;
  /** Why, in a sentence fragment: "the policy's cap". */
  reason: string;
};

const REASONS: Record<PolicyAdjustment["rule"], string | undefined> = {
  recent_oom: "a recent run of this job was killed for memory: more than it died with",
  floor: "the policy's floor",
  cap: "the policy's cap",
  node_capacity: "what a node of the partition has",
  max_decrease: "the policy's largest decrease in one step",
  max_increase: "the policy's largest increase in one step",
  never_lower: "the policy never lowers it",
  min_confidence: "the confidence is under the policy's minimum",
  user_opt_out: "you opted out of changes",
  // Rounding to what the scheduler takes says nothing worth telling.
  rounding: undefined,
};

/**
 * The rules that moved each recommendation of a prediction (recent memory kill, floors, caps,
 * node capacity, limits per step, opt-outs), in order, each with its reason in words; rounding is
 * left out. For a CLI line or a web page alike.
 *
 * @example
 * ```ts
 * const prediction = await client.predictions.create(request);
 * for (const a of adjustmentReasons(prediction.resources)) console.log(`${a.resource}: ${a.reason}`);
 * ```
 */
export function adjustmentReasons(resources: readonly ResourcePrediction[]): AdjustmentReason[] {
  const out: AdjustmentReason[] = [];
  for (const r of resources) {
    if (r.status !== "ok") continue;
    for (const a of r.adjustments ?? []) {
      const reason = REASONS[a.rule];
      if (reason) out.push({ resource: r.resource, rule: a.rule, before: a.before, after: a.after, reason });
    }
  }
  return out;
}
