import type {
  JobSpec,
  Policy,
  PolicyAdjustment,
  PredictionMode,
  ResourceName,
  ResourcePrediction,
} from "@jobsight/schemas";
import { boundsOf, requestOf } from "./policy-bounds.js";
import { type GranularityOptions, granularityOf, roundDownTo, roundUpTo } from "./scheduler-rounding.js";

/** Why a recommendation was not used for a resource; the request then stays as it is. */
export type HeldReason =
  | "insufficient_evidence"
  | "leave_alone"
  | "not_requested"
  | "user_opt_out"
  | "min_confidence";

/** The decision for one resource of one job. */
export type AppliedResource = {
  resource: ResourceName;
  /** What the job asked for, in the resource's unit; undefined when it asked for nothing. */
  requested?: number;
  /** The model's recommendation before the policy, when there is one. */
  recommended?: number;
  confidence?: number;
  /** What the scheduler should be given; undefined leaves the resource unset. */
  value?: number;
  /** Whether `value` differs from `requested`. */
  changed: boolean;
  /** Set when the recommendation was not used at all, and why. */
  held?: HeldReason;
  /** Every rule that moved the value, in order; the last one is the one that limited it. */
  adjustments: PolicyAdjustment[];
};

/** What the policy makes of one prediction. */
export type PolicyDecision = {
  mode: PredictionMode;
  /** False in shadow mode: the values are what would be applied, and nothing is. */
  apply: boolean;
  resources: AppliedResource[];
};

/** Options of {@link applyPolicy}. */
export type ApplyPolicyOptions = GranularityOptions & {
  /**
   * `shadow` computes the same values but marks them as not to be applied.
   * @default "live"
   */
  mode?: PredictionMode;
  /**
   * Resources that may be set on a job that did not ask for them. GPUs are never added to a job
   * that asked for none: that would change the kind of node it needs.
   * @default ["memory", "cores", "walltime"]
   */
  fillUnrequested?: readonly ResourceName[];
};

const DEFAULT_FILL: readonly ResourceName[] = ["memory", "cores", "walltime"];

/**
 * Apply the platform team's policy to a prediction: per resource, the value a scheduler should be
 * given and every rule that changed it. The request is kept when the user opted out, the resource
 * is left alone, the evidence is insufficient or the confidence is below `minConfidence`.
 * Otherwise: never lower (if listed), at most `maxDecrease`/`maxIncrease` relative to the request,
 * floors, then caps and node capacity (which never push a value below the job's own request:
 * Jobsight does not enforce caps on requests, it only refuses to raise beyond them), then
 * rounding up to what the scheduler takes, and never below one unit.
 *
 * Caps win over floors when a policy makes them cross (`checkPolicy` reports that).
 *
 * @example
 * ```ts
 * const d = applyPolicy(prediction.resources, spec, { name: "p", maxDecrease: { memory: 0.5 } });
 * d.resources[0]; // { resource: "memory", requested: 8 GiB, value: 4 GiB, adjustments: [{ rule: "max_decrease", … }] }
 * ```
 */
export function applyPolicy(
  resources: readonly ResourcePrediction[],
  spec: JobSpec,
  policy: Policy,
  options: ApplyPolicyOptions = {},
): PolicyDecision {
  const mode = options.mode ?? "live";
  return {
    mode,
    apply: mode === "live",
    resources: resources.map((prediction) => decideResource(prediction, spec, policy, options)),
  };
}

function decideResource(
  prediction: ResourcePrediction,
  spec: JobSpec,
  policy: Policy,
  options: ApplyPolicyOptions,
): AppliedResource {
  const resource = prediction.resource;
  const requested = requestOf(spec, resource) ?? prediction.requested;
  const base: AppliedResource = { resource, changed: false, adjustments: [] };
  if (requested !== undefined) {
    base.requested = requested;
    base.value = requested;
  }
  const recommendation = prediction.status === "ok" ? prediction : undefined;
  if (recommendation) {
    base.recommended = recommendation.value;
    base.confidence = recommendation.confidence;
  }

  if (policy.optOutUsers?.includes(spec.user))
    return held(base, recommendation, requested, "user_opt_out", "user_opt_out");
  if (policy.leaveAlone?.includes(resource)) return held(base, recommendation, requested, "leave_alone");
  if (!recommendation) return held(base, recommendation, requested, "insufficient_evidence");
  const fill = options.fillUnrequested ?? DEFAULT_FILL;
  const unrequested =
    requested === undefined || (requested === 0 && (resource === "gpus" || resource === "gpuMemory"));
  if (unrequested && (!fill.includes(resource) || resource === "gpus")) {
    return held(base, recommendation, requested, "not_requested");
  }
  if (policy.minConfidence !== undefined && recommendation.confidence < policy.minConfidence) {
    return held(base, recommendation, requested, "min_confidence", "min_confidence");
  }

  const value = boundedValue(recommendation.value, requested, resource, spec, policy, options);
  return {
    ...base,
    value: value.value,
    changed: value.value !== requested,
    adjustments: value.adjustments,
  };
}

// Plain functions rather than closures: this runs for every resource of every prediction, and a
// closure per call is an allocation (and, where names are kept, a property definition) per call.

/** The request kept, and why; the recommendation it replaced is listed under `rule`. */
function held(
  base: AppliedResource,
  recommendation: { value: number } | undefined,
  requested: number | undefined,
  reason: HeldReason,
  rule?: PolicyAdjustment["rule"],
): AppliedResource {
  const adjustments =
    rule && recommendation && requested !== undefined && recommendation.value !== requested
      ? [{ rule, before: recommendation.value, after: requested }]
      : [];
  return { ...base, held: reason, adjustments };
}

/** The value so far and every rule that moved it. */
type Stepped = { value: number; adjustments: PolicyAdjustment[] };

function step(state: Stepped, rule: PolicyAdjustment["rule"], next: number): void {
  if (next === state.value) return;
  state.adjustments.push({ rule, before: state.value, after: next });
  state.value = next;
}

function boundedValue(
  recommended: number,
  requested: number | undefined,
  resource: ResourceName,
  spec: JobSpec,
  policy: Policy,
  options: ApplyPolicyOptions,
): Stepped {
  const state: Stepped = { value: recommended, adjustments: [] };
  // The bounds every step below must respect, kept for the rounding at the end.
  let lower = 0;
  let upper = Number.POSITIVE_INFINITY;
  const relative = requested !== undefined && requested > 0;
  if (relative && policy.neverLower?.includes(resource)) {
    lower = Math.max(lower, requested);
    if (state.value < requested) step(state, "never_lower", requested);
  }
  const maxDecrease = policy.maxDecrease?.[resource];
  if (relative && maxDecrease !== undefined) {
    const least = requested * (1 - maxDecrease);
    lower = Math.max(lower, least);
    if (state.value < least) step(state, "max_decrease", least);
  }
  const maxIncrease = policy.maxIncrease?.[resource];
  const most = relative && maxIncrease !== undefined ? requested * (1 + maxIncrease) : undefined;
  if (most !== undefined && state.value > most) step(state, "max_increase", most);
  const bounds = boundsOf(policy, spec, resource);
  if (bounds.floor !== undefined) {
    lower = Math.max(lower, bounds.floor);
    if (state.value < bounds.floor) step(state, "floor", bounds.floor);
  }
  // A floor above the largest increase wins: the floor is the platform's minimum.
  if (most !== undefined) upper = Math.max(most, bounds.floor ?? 0, lower);
  for (const limit of bounds.limits) {
    const ceiling = requested !== undefined ? Math.max(limit.value, requested) : limit.value;
    upper = Math.min(upper, ceiling);
    if (state.value > ceiling) step(state, limit.rule, ceiling);
  }
  if (state.value === requested) return state;
  step(state, "rounding", rounded(state.value, resource, lower, upper, options));
  return state;
}

// Up to the scheduler's step; down to the step below `upper` when rounding up would cross it;
// unrounded when no multiple fits between the bounds. Never below one step: Jobsight never
// takes a resource away entirely. The bounds are checked exactly: the rounding helpers tolerate
// binary noise (0.37000000000000005 cores is 0.37), the policy's limits do not.
function rounded(
  v: number,
  resource: ResourceName,
  lower: number,
  upper: number,
  options: ApplyPolicyOptions,
): number {
  const g = granularityOf(options)[resource];
  const up = Math.max(g, roundUpTo(v, g));
  if (up >= g && up >= lower && up <= upper) return up;
  const down = roundDownTo(upper, g);
  return down >= g && down >= lower && down <= upper ? down : v;
}
