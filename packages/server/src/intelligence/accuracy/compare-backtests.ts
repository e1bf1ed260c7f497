import type { ResourceName } from "@jobsight/schemas";
import type { BacktestFigures } from "../registry/model-manifest.js";
import { ALL_RESOURCES } from "../resources.js";

/**
 * When a new model counts as worse than the one in service. A miss rate is only held against
 * a candidate above the EVALUATION.md goal (a model at 0.6% is not worse than one at 0.4% for
 * any practical purpose), and every figure has a tolerance for the noise of a small holdout.
 */
export type ComparisonThresholds = {
  /** Under-prediction rate that is acceptable whatever the active model does. @default 0.01 */
  underPredictionGoal: number;
  /** Allowed rise of the under-prediction rate above max(active, goal). @default 0.005 */
  underPredictionTolerance: number;
  /** Weighted under-prediction that is acceptable whatever the active model does. @default 0.02 */
  weightedUnderPredictionGoal: number;
  /** Allowed rise of the weighted under-prediction above max(active, goal). @default 0.01 */
  weightedUnderPredictionTolerance: number;
  /** Allowed drop of coverage. @default 0.05 */
  coverageTolerance: number;
  /** Allowed relative rise of slack. @default 0.2 */
  slackRelativeTolerance: number;
  /** Allowed absolute rise of slack on top. @default 0.05 */
  slackAbsoluteTolerance: number;
};

/** The thresholds of {@link compareBacktests}, in one documented place. */
export const COMPARISON_THRESHOLDS: ComparisonThresholds = {
  underPredictionGoal: 0.01,
  underPredictionTolerance: 0.005,
  weightedUnderPredictionGoal: 0.02,
  weightedUnderPredictionTolerance: 0.01,
  coverageTolerance: 0.05,
  slackRelativeTolerance: 0.2,
  slackAbsoluteTolerance: 0.05,
};

/** One resource's figures of both models, and on what the comparison rests. */
export type ResourceComparison = {
  candidate?: BacktestFigures;
  active?: BacktestFigures;
  /** `same_jobs`: both scored on the holdout jobs neither had seen; `recorded`: each on its own holdout. */
  basis: "same_jobs" | "recorded";
};

/** Whether a candidate model goes into service, and why. */
export type ModelDecision = {
  accepted: boolean;
  /** Version of the model compared with, if any. */
  comparedWith?: string;
  reasons: string[];
};

const pct = (x: number) => `${(x * 100).toFixed(2)}%`;

/**
 * Compares a candidate's backtest with the active model's, resource by resource: worse when it
 * loses a resource the active one predicts, misses more often (jobs or usage) beyond the goal,
 * covers fewer jobs or wastes more, each beyond its tolerance. Every reason names the figures.
 *
 * @example
 * ```ts
 * compareBacktests({ memory: { candidate, active, basis: "same_jobs" } }, "v3");
 * // { accepted: false, comparedWith: "v3", reasons: ["memory: under-prediction 4.10% vs 0.80% (same jobs)"] }
 * ```
 */
export function compareBacktests(
  resources: Partial<Record<ResourceName, ResourceComparison>>,
  activeVersion: string | undefined,
  thresholds: ComparisonThresholds = COMPARISON_THRESHOLDS,
): ModelDecision {
  if (activeVersion === undefined)
    return { accepted: true, reasons: ["first model: nothing to compare with"] };
  const t = thresholds;
  const worse: string[] = [];
  const fine: string[] = [];
  for (const name of ALL_RESOURCES) {
    const r = resources[name];
    if (!r) continue;
    const { candidate: c, active: a } = r;
    const on = r.basis === "same_jobs" ? "same jobs" : "own holdouts";
    if (a && !c) {
      worse.push(`${name}: the new model has no backtest (or no model) where the active one has`);
      continue;
    }
    if (!c || !a) {
      fine.push(`${name}: nothing to compare with`);
      continue;
    }
    const before = worse.length;
    if (
      c.underPredictionRate >
      Math.max(a.underPredictionRate, t.underPredictionGoal) + t.underPredictionTolerance
    ) {
      worse.push(
        `${name}: under-prediction ${pct(c.underPredictionRate)} vs ${pct(a.underPredictionRate)} (${on})`,
      );
    }
    if (
      c.weightedUnderPredictionRate >
      Math.max(a.weightedUnderPredictionRate, t.weightedUnderPredictionGoal) +
        t.weightedUnderPredictionTolerance
    ) {
      worse.push(
        `${name}: weighted under-prediction ${pct(c.weightedUnderPredictionRate)} vs ${pct(a.weightedUnderPredictionRate)} (${on})`,
      );
    }
    if (c.coverage < a.coverage - t.coverageTolerance) {
      worse.push(`${name}: coverage ${pct(c.coverage)} vs ${pct(a.coverage)} (${on})`);
    }
    if (c.slack > a.slack * (1 + t.slackRelativeTolerance) + t.slackAbsoluteTolerance) {
      worse.push(`${name}: slack ${pct(c.slack)} vs ${pct(a.slack)} (${on})`);
    }
    if (worse.length === before) {
      fine.push(
        `${name}: under-prediction ${pct(c.underPredictionRate)} vs ${pct(a.underPredictionRate)}, slack ${pct(c.slack)} vs ${pct(a.slack)} (${on})`,
      );
    }
  }
  return worse.length > 0
    ? { accepted: false, comparedWith: activeVersion, reasons: worse }
    : {
        accepted: true,
        comparedWith: activeVersion,
        reasons: fine.length > 0 ? fine : ["no figures to compare"],
      };
}
