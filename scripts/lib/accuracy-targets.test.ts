import { describe, expect, it } from "vitest";
import { bestSimpleSlack, calibrationGap, checkTargets, renderChecks, TARGETS } from "./accuracy-targets.mjs";

const good = {
  underPredictionRate: 0.004,
  weightedUnderPredictionRate: 0.015,
  coverage: 0.93,
  rangeCoverage: 0.975,
  nominalRangeCoverage: 0.982,
  calibration: [
    { confidence: 0.95, observed: 0.94, jobs: 500 },
    { confidence: 0.99, observed: 0.7, jobs: 80 },
  ],
  valueInRange: 1,
  slack: 0.4,
  slackAt1pct: 0.38,
};
const bad = {
  underPredictionRate: 0.02,
  weightedUnderPredictionRate: 0.05,
  coverage: 0.85,
  rangeCoverage: 0.9,
  nominalRangeCoverage: 0.982,
  calibration: [{ confidence: 0.9, observed: 0.87, jobs: 100 }],
  valueInRange: 0.99,
  slack: 1.1,
};
const unmeasured = {
  underPredictionRate: 0.01,
  weightedUnderPredictionRate: 0.02,
  coverage: 0.9,
  slack: 0.2,
};

describe("accuracy targets", () => {
  it("renders exactly what accuracy-report.mjs rendered before the targets moved here", () => {
    // Captured from the former verdicts() of scripts/accuracy-report.mjs on the same inputs, except
    // that a range coverage the report lacks is now "not measured" rather than met.
    expect(renderChecks(checkTargets(good, 1.2))).toBe(
      "met: under-prediction ≤ 1%; met: weighted under-prediction ≤ 2%; met: coverage ≥ 90%; met: range coverage within 2 points of nominal; met: calibration within 2 points (buckets of ≥ 100 jobs); met: every value inside its own range; met: slack ≤ half the best simple predictor's slack at 1% (60%)",
    );
    expect(renderChecks(checkTargets(bad, 1.2))).toBe(
      "**not met**: under-prediction ≤ 1%; **not met**: weighted under-prediction ≤ 2%; **not met**: coverage ≥ 90%; **not met**: range coverage within 2 points of nominal; **not met**: calibration within 2 points (buckets of ≥ 100 jobs); **not met**: every value inside its own range; **not met**: slack ≤ half the best simple predictor's slack at 1% (60%)",
    );
    expect(renderChecks(checkTargets(unmeasured, Number.POSITIVE_INFINITY))).toBe(
      "met: under-prediction ≤ 1%; met: weighted under-prediction ≤ 2%; met: coverage ≥ 90%; not measured in this report: range coverage within 2 points of nominal; met: calibration within 2 points (buckets of ≥ 100 jobs); not measured in this report: every value inside its own range; **not met**: slack ≤ half the best simple predictor's slack at 1% (Infinity%)",
    );
    expect(renderChecks(checkTargets(good, 0.7))).toBe(
      "met: under-prediction ≤ 1%; met: weighted under-prediction ≤ 2%; met: coverage ≥ 90%; met: range coverage within 2 points of nominal; met: calibration within 2 points (buckets of ≥ 100 jobs); met: every value inside its own range; **not met**: slack ≤ half the best simple predictor's slack at 1% (35%)",
    );
  });

  it("checks each target at its bound: true, false, or undefined when not measured", () => {
    const met = (model: object, best = 1) => checkTargets(model, best).map((c: { met?: boolean }) => c.met);
    expect(met(good)).toEqual([true, true, true, true, true, true, true]);
    expect(met(bad)).toEqual([false, false, false, false, false, false, false]);
    expect(met({ ...good, underPredictionRate: TARGETS.under + 1e-9 })[0]).toBe(false);
    expect(met({ ...good, coverage: TARGETS.coverage - 1e-9 })[2]).toBe(false);
    expect(met({ ...good, valueInRange: undefined })[5]).toBeUndefined();
    // The slack target is half the best simple predictor's slack at ≤1%, and needs one.
    expect(met({ ...good, slack: 0.5 }, 1)[6]).toBe(true);
    expect(met({ ...good, slack: 0.51 }, 1)[6]).toBe(false);
    expect(met({ ...good, slack: 0 }, Number.POSITIVE_INFINITY)[6]).toBe(false);
    // A figure the JSON report holds as null (NaN: nothing recommended) meets no bound.
    const nothing = { ...good, underPredictionRate: null, weightedUnderPredictionRate: null, slack: null };
    expect(met(nothing)).toEqual([false, false, true, true, true, true, false]);
    expect(met({ ...good, rangeCoverage: undefined })[3]).toBeUndefined();
  });

  it("takes the calibration gap over buckets of at least 100 jobs only", () => {
    expect(calibrationGap(good)).toBeCloseTo(0.01, 12);
    expect(calibrationGap(bad)).toBeCloseTo(0.03, 12);
    expect(calibrationGap({})).toBe(0);
  });

  it("takes the best simple slack as the lowest finite slack at ≤1% of the references", () => {
    const request = { slackAt1pct: 2 };
    const vpa = { slackAt1pct: 1.5 };
    expect(bestSimpleSlack({ model: { slackAt1pct: 0.1 }, request, vpa })).toBe(1.5);
    expect(bestSimpleSlack({ request, vpa, vpaCapped: { slackAt1pct: 0.9 } })).toBe(0.9);
    expect(bestSimpleSlack({ request, vpa: { slackAt1pct: null } })).toBe(2);
    expect(bestSimpleSlack({ request: { slackAt1pct: null }, vpa: { slackAt1pct: null } })).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});
