import type { MemoryKill, RecentMemoryKills } from "../features/recent-memory-kills.js";
import type { RawOutcome } from "./predictor.js";

/** The feature named in the evidence when a recent kill raised (or made) a recommendation. */
export const RECENT_OOM_FEATURE = "recent_oom_kill";

/**
 * The memory outcome of a resubmission whose application was recently killed for memory: never
 * less than `factor` × what it died with. A recommendation under that is raised to it (its
 * confidence can only grow: the value did); where the model gives none (no model yet, a new
 * user, an erratic group) the kill alone makes one, with the confidence this site's own retries
 * earned such a step — unless the job already asks for at least that, when there is nothing to
 * say. The change is listed as a `recent_oom` adjustment, before the policy's own.
 *
 * @example
 * ```ts
 * const kill = state.recentMemoryKill(job, keys);
 * if (kill) outcome = raiseAboveKill(outcome, kill, state.kills, request, "user=alice,executable=train.py");
 * ```
 */
export function raiseAboveKill(
  outcome: RawOutcome,
  kill: MemoryKill,
  kills: RecentMemoryKills,
  request: number | undefined,
  group: string,
): RawOutcome {
  const floor = kill.lowerBoundBytes * kills.factor;
  const p = outcome.prediction;
  if (p.status === "ok") {
    if (p.value >= floor) return outcome;
    return {
      ...outcome,
      prediction: {
        ...p,
        value: floor,
        low: Math.min(floor, Math.max(p.low, kill.lowerBoundBytes)),
        high: Math.max(p.high, floor),
        confidence: Math.max(p.confidence, kills.confidence),
        evidence: {
          ...p.evidence,
          censoredJobs: Math.max(1, p.evidence.censoredJobs),
          features: [RECENT_OOM_FEATURE, ...p.evidence.features],
        },
      },
      adjustments: [{ rule: "recent_oom", before: p.value, after: floor }],
    };
  }
  if (p.reasonCode === "not_requested" || (request !== undefined && request >= floor)) return outcome;
  const made: RawOutcome = {
    resource: outcome.resource,
    prediction: {
      status: "ok",
      value: floor,
      low: kill.lowerBoundBytes,
      high: floor,
      // No range of a known level: the kill bounds the need from below, nothing bounds it above.
      nominalLevel: Number.NaN,
      confidence: kills.confidence,
      evidence: {
        group,
        jobs: Math.max(1, outcome.evidence?.jobs ?? 0),
        censoredJobs: Math.max(1, outcome.evidence?.censoredJobs ?? 0),
        since: new Date(kill.end * 1000).toISOString(),
        features: [RECENT_OOM_FEATURE],
      },
    },
  };
  if (request !== undefined) made.adjustments = [{ rule: "recent_oom", before: request, after: floor }];
  return made;
}
