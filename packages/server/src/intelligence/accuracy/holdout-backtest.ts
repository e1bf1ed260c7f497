import type { FeatureTable } from "../features/feature-table.js";
import type { HistoryJob } from "../history-job.js";
import type { ResourceModel } from "../model/resource-model.js";
import type { BacktestFigures } from "../registry/model-manifest.js";
import type { ResourceSpec } from "../resources.js";
import { predictResource, type ResourcePrediction } from "../serving/predictor.js";
import type { TrainResourceModelOptions } from "../training/train-resource-model.js";
import { computeMetrics, type ScoredJob } from "./backtest/metrics.js";
import { runModelProtocol } from "./backtest/protocol.js";

/** A candidate's holdout figures, and the active model's on the holdout jobs it never saw. */
export type HoldoutResult = {
  figures: BacktestFigures;
  /** Present when the active model could be scored on enough of the same unseen jobs. */
  sameJobs?: { jobs: number; candidate: BacktestFigures; active: BacktestFigures };
};

/** Options of {@link holdoutBacktest}. */
export type HoldoutOptions = {
  /** Share of the jobs, the last submitted, that are predicted. */
  holdoutShare: number;
  training?: TrainResourceModelOptions;
  /** The model in service, scored on the holdout jobs submitted after its training and calibration data ended. */
  active?: ResourceModel;
  /** Fewest such jobs for a same-jobs comparison. */
  minComparisonJobs: number;
};

/**
 * A quick backtest of one resource by the EVALUATION.md protocol, served the way the server
 * serves: one model trained on the jobs that ended before the holdout starts, never retrained or
 * recalibrated inside it, each holdout job predicted from the history at its submission. Only
 * completed jobs are scored.
 *
 * @example
 * ```ts
 * const { figures } = holdoutBacktest(jobs, table, resourceSpec("memory"), { holdoutShare: 0.15, minComparisonJobs: 100 });
 * ```
 */
export function holdoutBacktest(
  jobs: readonly HistoryJob[],
  table: FeatureTable,
  spec: ResourceSpec,
  options: HoldoutOptions,
): HoldoutResult {
  const protocol = runModelProtocol(table, {
    window: options.holdoutShare,
    retrainEverySeconds: Number.POSITIVE_INFINITY,
    recalibrateEverySeconds: Number.POSITIVE_INFINITY,
    training: options.training,
  });
  const first = protocol.firstEvaluated;
  const nominal = protocol.lastModel?.calibration.nominalLevel;
  const cap = protocol.lastModel?.calibration.enforcedLimit ?? false;
  const active = options.active;
  const comparable =
    active !== undefined &&
    active.featureNames.length === table.featureNames.length &&
    active.featureNames.every((f, i) => f === table.featureNames[i]);
  // Jobs submitted after the active model's trees and calibration had seen any of them.
  const unseenFrom = Math.max(active?.trainedAt ?? 0, active?.calibratedAt ?? 0);
  const all: Scored = { model: [], request: [] };
  const same: Scored & { active: ScoredJob[] } = { model: [], request: [], active: [] };
  const F = table.featureNames.length;
  for (let i = first; i < jobs.length; i++) {
    const actual = spec.target(jobs[i]);
    if (actual === undefined || jobs[i].outcome !== "completed") continue;
    const req = spec.request(jobs[i]);
    const limit = cap ? req : undefined;
    const p = protocol.predictions[i - first];
    add(all, p, actual, req, limit);
    if (comparable && active && table.submit[i] >= unseenFrom) {
      add(same, p, actual, req, limit);
      const a = predictResource(active, table.x.subarray(i * F, (i + 1) * F), {
        request: table.request[i],
        userJobs: table.userJobs[i],
      });
      same.active.push(scored(a, actual, limit));
    }
  }
  const result: HoldoutResult = { figures: figuresOf(all, nominal) };
  if (same.model.length >= options.minComparisonJobs) {
    result.sameJobs = {
      jobs: same.model.length,
      candidate: figuresOf(same, nominal),
      active: figuresOf({ model: same.active, request: same.request }, active?.calibration.nominalLevel),
    };
  }
  return result;
}

type Scored = { model: ScoredJob[]; request: ScoredJob[] };

function scored(p: ResourcePrediction, actual: number, cap: number | undefined): ScoredJob {
  return p.status === "ok"
    ? { actual, value: p.value, low: p.low, high: p.high, confidence: p.confidence, cap }
    : { actual };
}

function add(into: Scored, p: ResourcePrediction, actual: number, req: number | undefined, cap?: number) {
  into.model.push(scored(p, actual, cap));
  into.request.push({ actual, value: req, cap });
}

function figuresOf(s: Scored, nominal: number | undefined): BacktestFigures {
  const m = computeMetrics(s.model, nominal);
  // The users' requests on the jobs the model recommended for, so both slacks weigh the same jobs.
  const requests = s.request.filter((_, k) => s.model[k].value !== undefined);
  const r = computeMetrics(requests);
  const out: BacktestFigures = {
    evaluated: s.model.length,
    recommended: m.recommended,
    coverage: m.coverage,
    underPredictionRate: m.underPredictionRate,
    weightedUnderPredictionRate: m.weightedUnderPredictionRate,
    slack: m.slack,
  };
  if (r.recommended > 0) out.requestSlack = r.slack;
  if (m.rangeCoverage !== undefined) out.rangeCoverage = m.rangeCoverage;
  if (m.nominalRangeCoverage !== undefined) out.nominalRangeCoverage = m.nominalRangeCoverage;
  return out;
}
