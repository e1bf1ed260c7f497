import type { PolicyAdjustment, ResourcePrediction } from "@jobsight/schemas";
import { formatResourceValue } from "../format-values.js";

/** Why a rule moved a value, in the words a researcher reads. */
const REASONS: Record<PolicyAdjustment["rule"], string | undefined> = {
  recent_oom: "a recent run of this job was killed for memory: more than it died with",
  floor: "the partition's floor",
  cap: "the partition's cap",
  node_capacity: "what a node of the partition has",
  max_decrease: "the policy's largest decrease in one step",
  max_increase: "the policy's largest increase in one step",
  never_lower: "the policy never lowers it",
  min_confidence: "the confidence is under the policy's minimum",
  user_opt_out: "you opted out of changes",
  // Rounding to what the scheduler takes says nothing worth a line.
  rounding: undefined,
};

/**
 * One line per rule that moved a recommendation, e.g.
 * `memory 100.0 MiB → 450.0 MiB: a recent run of this job was killed for memory: …`.
 *
 * @example
 * ```ts
 * for (const line of adjustmentNotes(prediction.resources)) out.write(`${line}\n`);
 * ```
 */
export function adjustmentNotes(resources: readonly ResourcePrediction[]): string[] {
  const lines: string[] = [];
  for (const r of resources) {
    if (r.status !== "ok") continue;
    for (const a of r.adjustments ?? []) {
      const reason = REASONS[a.rule];
      if (!reason) continue;
      const before = formatResourceValue(r.resource, a.before);
      const after = formatResourceValue(r.resource, a.after);
      lines.push(`${r.resource} ${before} → ${after}: ${reason}`);
    }
  }
  return lines;
}
