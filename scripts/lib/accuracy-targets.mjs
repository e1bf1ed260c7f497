// The evaluation's targets, checked on one resource of a `jobsight backtest --json` report at the
// model's own operating point. Shared by accuracy-report.mjs and leave-one-trace-out.mjs.
//
//   const best = bestSimpleSlack(report.resources.memory);
//   checkTargets(report.resources.memory.model, best); // [{ target: "under-prediction ≤ 1%", met: true }, ...]

/** The evaluation's targets, per trace and resource. */
export const TARGETS = { under: 0.01, weightedUnder: 0.02, coverage: 0.9, calibrationPoints: 0.02 };

/** A share as a percentage with `digits` decimals; `–` when not measured. */
export const pct = (v, digits = 1) =>
  v === undefined || v === null || Number.isNaN(v) ? "–" : `${(100 * v).toFixed(digits)}`;

/** The widest gap between promised and observed confidence over buckets of at least 100 jobs. */
export function calibrationGap(model) {
  const buckets = (model.calibration ?? []).filter((b) => b.jobs >= 100);
  return buckets.reduce((worst, b) => Math.max(worst, Math.abs(b.observed - b.confidence)), 0);
}

/**
 * The best simple predictor's slack at ≤1% under-prediction: the lowest of the users' requests,
 * the VPA-style baseline and its capped variant; Infinity when none is finite.
 */
export function bestSimpleSlack(resourceReport) {
  const r = resourceReport;
  return Math.min(
    ...[r.request, r.vpa, r.vpaCapped]
      .filter(Boolean)
      .map((m) => m.slackAt1pct)
      .filter(Number.isFinite),
  );
}

/**
 * Every target checked on the model's metrics of one resource; `best` is {@link bestSimpleSlack}.
 * `met` is true, false, or undefined when the report does not measure it.
 */
export function checkTargets(model, best) {
  // A figure the JSON report holds as null (NaN: nothing recommended) meets no bound.
  const atMost = (v, bound) => typeof v === "number" && v <= bound;
  return [
    {
      target: `under-prediction ≤ ${pct(TARGETS.under, 0)}%`,
      met: atMost(model.underPredictionRate, TARGETS.under),
    },
    {
      target: `weighted under-prediction ≤ ${pct(TARGETS.weightedUnder, 0)}%`,
      met: atMost(model.weightedUnderPredictionRate, TARGETS.weightedUnder),
    },
    { target: `coverage ≥ ${pct(TARGETS.coverage, 0)}%`, met: model.coverage >= TARGETS.coverage },
    {
      target: "range coverage within 2 points of nominal",
      met:
        typeof model.rangeCoverage !== "number" || typeof model.nominalRangeCoverage !== "number"
          ? undefined
          : Math.abs(model.rangeCoverage - model.nominalRangeCoverage) <= TARGETS.calibrationPoints,
    },
    {
      target: "calibration within 2 points (buckets of ≥ 100 jobs)",
      met: calibrationGap(model) <= TARGETS.calibrationPoints,
    },
    {
      target: "every value inside its own range",
      met: model.valueInRange === undefined ? undefined : model.valueInRange === 1,
    },
    {
      target: `slack ≤ half the best simple predictor's slack at 1% (${pct(best / 2, 0)}%)`,
      met: Number.isFinite(best) ? atMost(model.slack, best / 2) : false,
    },
  ];
}

/** Checks as one line: `met: under-prediction ≤ 1%; **not met**: coverage ≥ 90%; ...`. */
export function renderChecks(checks) {
  const verdict = (ok) => (ok === undefined ? "not measured in this report" : ok ? "met" : "**not met**");
  return checks.map(({ target, met }) => `${verdict(met)}: ${target}`).join("; ");
}
