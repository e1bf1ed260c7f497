import { describe, expect, it } from "vitest";
import { computeMetrics, slackAtTarget } from "./metrics.js";

describe("computeMetrics", () => {
  it("matches a hand computation on a tiny example", () => {
    const m = computeMetrics(
      [
        { actual: 10, value: 15, low: 8, high: 12, confidence: 0.9 },
        { actual: 20, value: 18, low: 15, high: 25, confidence: 0.9 },
        { actual: 30, value: 30, low: 31, high: 40, confidence: 0.99 },
        { actual: 40 },
      ],
      0.9,
    );
    expect(m.coverage).toBe(3 / 4);
    expect(m.underPredictionRate).toBe(1 / 3);
    // Σ max(v − a, 0) = 5 + 0 + 0 over Σ a = 60.
    expect(m.slack).toBeCloseTo(5 / 60);
    expect(m.weightedUnderPredictionRate).toBeCloseTo(20 / 60);
    expect(m.rangeCoverage).toBeCloseTo(2 / 3);
    expect(m.nominalRangeCoverage).toBe(0.9);
    // 15 ∉ [8, 12], 18 ∈ [15, 25], 30 ∉ [31, 40]: one recommendation of three agrees with its range.
    expect(m.valueInRange).toBeCloseTo(1 / 3);
    expect(m.calibration).toEqual([
      { confidence: 0.9, jobs: 2, observed: 0.5 },
      { confidence: 0.99, jobs: 1, observed: 1 },
    ]);
  });

  it("finds the safety factor that brings under-prediction to 1% and the slack it costs", () => {
    // 100 jobs all predicted at 10; actual 1..100 ⇒ 99% covered needs value ≥ 99 ⇒ factor 9.9.
    const jobs = Array.from({ length: 100 }, (_, i) => ({ actual: i + 1, value: 10 }));
    const { factor, slack } = slackAtTarget(jobs, 0.01);
    expect(factor).toBeCloseTo(9.9);
    const over = jobs.reduce((a, j) => a + Math.max(99 - j.actual, 0), 0);
    expect(slack).toBeCloseTo(over / 5050);
  });

  it("re-applies an enforced cap after scaling, and counts jobs above the cap as misses", () => {
    const jobs = Array.from({ length: 100 }, (_, i) => ({ actual: i + 1, value: 10, cap: 100 }));
    const { factor, slack } = slackAtTarget(jobs, 0.01);
    // The job at 100 is coverable (cap = actual); one miss allowed ⇒ the job at 100 is it, factor 9.9.
    expect(factor).toBeCloseTo(9.9);
    expect(slack).toBeGreaterThan(0);
    const unreachable = slackAtTarget(
      Array.from({ length: 10 }, () => ({ actual: 10, value: 1, cap: 5 })),
      0.01,
    );
    expect(unreachable.factor).toBeNaN();
  });
});
