/** One evaluated job as one predictor saw it. `value` undefined: no recommendation. */
export type ScoredJob = {
  actual: number;
  value?: number;
  low?: number;
  high?: number;
  confidence?: number;
  /** The limit a scaled-up value is capped at again (the request, where enforced); default none. */
  cap?: number;
};

/** A confidence bucket: mean promised confidence against the observed share not under-predicted. */
export type CalibrationBucket = { confidence: number; jobs: number; observed: number };

/** The metrics of EVALUATION.md for one predictor on one resource. */
export type PredictorMetrics = {
  recommended: number;
  coverage: number;
  underPredictionRate: number;
  weightedUnderPredictionRate: number;
  slack: number;
  /** Slack once the safety factor is tuned so that under-prediction ≤ 1% (NaN when unreachable). */
  slackAt1pct: number;
  safetyFactor: number;
  rangeCoverage?: number;
  nominalRangeCoverage?: number;
  /** Share of recommendations whose own value lies in their range, `low ≤ value ≤ high` (advice that agrees with itself: 1). */
  valueInRange?: number;
  calibration?: CalibrationBucket[];
};

const BUCKET_EDGES = [0, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 1.000001];

/**
 * Computes coverage, under-prediction, weighted under-prediction, slack, slack at 1% (with its
 * safety factor), range coverage and confidence calibration over the evaluated jobs.
 *
 * @example
 * ```ts
 * computeMetrics([{ actual: 10, value: 12 }, { actual: 10 }]); // coverage 0.5, slack 0.2
 * ```
 */
export function computeMetrics(jobs: ScoredJob[], nominalRangeCoverage?: number): PredictorMetrics {
  const rec = jobs.filter((j) => j.value !== undefined);
  let sumActual = 0;
  let sumOver = 0;
  let under = 0;
  let underActual = 0;
  let inRange = 0;
  let withRange = 0;
  let valueInRange = 0;
  for (const j of rec) {
    const v = j.value as number;
    sumActual += j.actual;
    sumOver += Math.max(v - j.actual, 0);
    if (v < j.actual) {
      under++;
      underActual += j.actual;
    }
    if (j.low !== undefined && j.high !== undefined) {
      withRange++;
      if (j.low <= j.actual && j.actual <= j.high) inRange++;
      if (j.low <= v && v <= j.high) valueInRange++;
    }
  }
  const n = rec.length;
  const { factor, slack: slackAt1pct } = slackAtTarget(rec, 0.01);
  const out: PredictorMetrics = {
    recommended: n,
    coverage: jobs.length > 0 ? n / jobs.length : 0,
    underPredictionRate: n > 0 ? under / n : 0,
    weightedUnderPredictionRate: sumActual > 0 ? underActual / sumActual : 0,
    slack: sumActual > 0 ? sumOver / sumActual : 0,
    slackAt1pct,
    safetyFactor: factor,
  };
  if (withRange > 0) {
    out.rangeCoverage = inRange / withRange;
    out.nominalRangeCoverage = nominalRangeCoverage;
    out.valueInRange = valueInRange / withRange;
  }
  if (rec.some((j) => j.confidence !== undefined)) out.calibration = calibrationBuckets(rec);
  return out;
}

/**
 * The smallest factor f such that at most `target` of the jobs get `min(f·value, cap) < actual`,
 * and the slack at that factor.
 */
export function slackAtTarget(rec: ScoredJob[], target: number): { factor: number; slack: number } {
  const n = rec.length;
  if (n === 0) return { factor: Number.NaN, slack: Number.NaN };
  let allowed = Math.floor(target * n);
  const ratios: number[] = [];
  for (const j of rec) {
    if (j.cap !== undefined && j.cap < j.actual) allowed--;
    else ratios.push(j.actual / (j.value as number));
  }
  if (allowed < 0) return { factor: Number.NaN, slack: Number.NaN };
  ratios.sort((a, b) => b - a);
  const factor = allowed < ratios.length ? ratios[allowed] : 0;
  let over = 0;
  let sum = 0;
  for (const j of rec) {
    const scaled = Math.min(factor * (j.value as number), j.cap ?? Number.POSITIVE_INFINITY);
    over += Math.max(scaled - j.actual, 0);
    sum += j.actual;
  }
  return { factor, slack: over / sum };
}

function calibrationBuckets(rec: ScoredJob[]): CalibrationBucket[] {
  const out: CalibrationBucket[] = [];
  for (let b = 0; b + 1 < BUCKET_EDGES.length; b++) {
    let jobs = 0;
    let conf = 0;
    let ok = 0;
    for (const j of rec) {
      const c = j.confidence;
      if (c === undefined || c < BUCKET_EDGES[b] || c >= BUCKET_EDGES[b + 1]) continue;
      jobs++;
      conf += c;
      if ((j.value as number) >= j.actual) ok++;
    }
    if (jobs > 0) out.push({ confidence: conf / jobs, jobs, observed: ok / jobs });
  }
  return out;
}
