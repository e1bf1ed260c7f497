import type { PolicyAdjustment, ResourceName } from "@jobsight/schemas";
import { calibrateJob } from "../calibration/calibrate-job.js";
import { restateConfidence } from "../calibration/delivered-confidence.js";
import { groupRecord, groupSpread, recentNeedFloor, requestHeld } from "../model/recent-need.js";
import { centreAndSpread, type ResourceModel } from "../model/resource-model.js";
import { evaluateEnsemble } from "../model/tree-ensemble.js";
import { isoSeconds } from "./iso-seconds.js";

/** The model's own outcome for one resource, unrounded, in the resource's base unit. */
export type RawOutcome = {
  resource: ResourceName;
  prediction:
    | ResourcePrediction
    | { status: "insufficient_evidence"; reasonCode: "no_model" | "not_requested"; reason: string };
  /** The group the evidence comes from, also for insufficient evidence. */
  evidence?: PredictionEvidence;
  /** What changed the model's value before any policy (a recent kill for memory). */
  adjustments?: PolicyAdjustment[];
};

/** The past jobs a recommendation rests on. */
export type PredictionEvidence = {
  group: string;
  jobs: number;
  censoredJobs: number;
  /** ISO time of the oldest job of the group still weighed. */
  since?: string;
  /** Features that drive the model most, strongest first. */
  features: string[];
};

/** A recommendation for one resource, in the resource's base unit (bytes, cores, seconds). */
export type ResourceRecommendation = {
  status: "ok";
  value: number;
  low: number;
  high: number;
  /** Share of jobs the [low, high] range is meant to contain; NaN when the range has no such level. */
  nominalLevel: number;
  /** Measured share of this site's finished jobs like this one whose use fell in [low, high]. */
  confidence: number;
  /**
   * What set the value: the model's calibrated bound, or the job's own request (times the grace
   * this site's jobs like it needed) where that was the tighter bound at the same risk.
   */
  basis?: "model" | "request";
  evidence: PredictionEvidence;
};

/** Why no recommendation is given (mirrors the wire contract's reason codes). */
export type InsufficientEvidenceCode =
  | "new_user_and_application"
  | "too_few_similar_jobs"
  | "too_uncertain"
  | "no_model";

/** An explicit refusal to guess. */
export type InsufficientEvidence = {
  status: "insufficient_evidence";
  reasonCode: InsufficientEvidenceCode;
  reason: string;
};

export type ResourcePrediction = ResourceRecommendation | InsufficientEvidence;

/** What the predictor knows about the job besides its feature row. */
export type PredictionContext = {
  /**
   * The job's request of this resource (undefined or NaN: none). A value or range top capped at it
   * is exactly it: `exp(log(r))` can land one ulp under `r`, which would read as a miss of a job
   * that used all of it.
   */
  request?: number;
  /** Completed jobs of the user so far. */
  userJobs: number;
  /** The group the evidence comes from, when one has enough jobs. */
  evidence?: { group: string; jobs: number; censoredJobs: number; since: number };
};

const importanceCache = new WeakMap<ResourceModel, string[]>();
/**
 * Predicts one resource of one job from its feature row: the calibrated upper bound as the value,
 * a calibrated range, and a confidence; or `insufficient_evidence` when the user is new or the
 * job's group is too erratic to bound without a wide guess.
 *
 * @example
 * ```ts
 * const p = predictResource(model, row, { request: req, userJobs: 12 });
 * if (p.status === "ok") console.log(p.value, p.confidence);
 * ```
 */
export function predictResource(
  model: ResourceModel,
  row: ArrayLike<number>,
  ctx: PredictionContext,
): ResourcePrediction {
  if (ctx.userJobs < model.minUserJobs) {
    return ctx.userJobs === 0
      ? {
          status: "insufficient_evidence",
          reasonCode: "new_user_and_application",
          reason: "no completed job of this user yet",
        }
      : {
          status: "insufficient_evidence",
          reasonCode: "too_few_similar_jobs",
          reason: `only ${ctx.userJobs} completed job(s) of this user; ${model.minUserJobs} needed`,
        };
  }
  const { m, s } = centreAndSpread(model, (e) => evaluateEnsemble(e, row));
  const logRequest = ctx.request === undefined ? Number.NaN : Math.log(ctx.request);
  // Never below what the same user's same program recently needed for its request: one of its
  // last jobs ran this close to (or past) what it asked for, so a lower value would have cut it.
  const need = recentNeedFloor(model, row, logRequest);
  const held = requestHeld(model, row, logRequest);
  // Too unsure of the job, the model gives way to the group's own calibrated record, if any.
  const r = calibrateJob(model.calibration, {
    m,
    s,
    y: Number.NaN,
    logRequest,
    need,
    held,
    group: groupRecord(model, row),
    groupSpread: groupSpread(model, row),
  });
  if (r.tooUncertain || r.logValue > model.maxLogValue) {
    return {
      status: "insufficient_evidence",
      reasonCode: "too_uncertain",
      reason: `similar jobs vary too much: a safe value would be ${Math.exp(r.logValue - m).toFixed(1)}× the typical one`,
    };
  }
  const ev = ctx.evidence;
  // The range's top is the value: one number, so the value is always inside its range.
  const value = r.atRequest && ctx.request !== undefined ? ctx.request : Math.exp(r.logValue);
  return {
    status: "ok",
    value,
    low: Math.min(lowerExp(r.logLow), value),
    high: value,
    nominalLevel: model.calibration.nominalLevel,
    // What such statements delivered on the site's ended jobs, once any have ended.
    confidence: restateConfidence(model.calibration, r.confidence),
    basis: r.capped ? "request" : "model",
    evidence: {
      group: ev?.group ?? "all jobs",
      jobs: ev?.jobs ?? ctx.userJobs,
      censoredJobs: ev?.censoredJobs ?? 0,
      since: ev && Number.isFinite(ev.since) ? isoSeconds(ev.since) : undefined,
      features: topFeatures(model),
    },
  };
}

/**
 * `exp(x)` rounded down by a relative hair. The low end is often some finished job's exact use
 * (jobs repeat their usage to the byte), calibrated in log space; `Math.exp(Math.log(u))` can land
 * an ulp above `u`, which would put that job outside the range it defines.
 */
export function lowerExp(x: number): number {
  return Math.exp(x) * (1 - 1e-12);
}

/** The features the ensembles split on most (by number of splits), strongest first. */
export function topFeatures(model: ResourceModel, k = 5): string[] {
  const cached = importanceCache.get(model);
  if (cached) return cached;
  const counts = new Map<number, number>();
  for (const e of [model.centre, model.upper]) {
    for (const t of e.trees) for (const f of t.feature) if (f >= 0) counts.set(f, (counts.get(f) ?? 0) + 1);
  }
  const top = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([f]) => model.featureNames[f]);
  importanceCache.set(model, top);
  return top;
}
