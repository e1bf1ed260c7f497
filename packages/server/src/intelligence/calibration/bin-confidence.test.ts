import { describe, expect, it } from "vitest";
import { fitBinConfidence } from "./bin-confidence.js";
import type { CalibrationExample, ConformalTable } from "./conformal-table.js";

/**
 * One cell whose recommended value is its centre + 2 spreads (the request where that is lower);
 * it recommends for every job.
 */
function oneCell(): ConformalTable {
  return {
    missRate: 0.008,
    usageMissRate: 0,
    nominalLevel: 0.9,
    spreadFloor: 0.02,
    enforcedLimit: false,
    binEdges: [],
    sizeEdges: [],
    bins: [{ n: 0, upper: 2, grace: 0, low: -2, confidence: Number.NaN, confidenceCapped: Number.NaN }],
    maxExcess: Number.MAX_VALUE,
    typicalSlack: 0,
    examples: 0,
  };
}

/** `n` uncapped jobs of centre 0 and spread 1, the first `missed` of them above the value. */
function uncapped(n: number, missed: number): CalibrationExample[] {
  return Array.from({ length: n }, (_, k) => ({
    m: 0,
    s: 1,
    y: k < missed ? 3 : 0,
    logRequest: Number.NaN,
  }));
}

describe("fitBinConfidence", () => {
  it("does not let the few uncapped jobs of a mostly capped cell promise little", () => {
    const table = oneCell();
    // 400 jobs held by their request (none missed) and 20 uncapped, four of them missed.
    const capped = Array.from({ length: 400 }, () => ({ m: 0, s: 1, y: 0.5, logRequest: 1 }));
    fitBinConfidence(table, [...capped, ...uncapped(20, 4)], 400);
    expect(table.bins[0].confidence).toBeGreaterThan(0.97);
    expect(table.bins[0].confidenceCapped).toBeGreaterThan(0.99);
  });

  it("counts as covered only the jobs inside [low, value], not those below the range", () => {
    const table = oneCell();
    const below = uncapped(8_000, 0).map((e, k) => (k < 400 ? { ...e, y: -3 } : e));
    fitBinConfidence(table, below, 400);
    expect(table.bins[0].confidence).toBeCloseTo(0.95, 2);
  });

  it("follows a cell's own rate once it rests on many more jobs than the prior", () => {
    const table = oneCell();
    fitBinConfidence(table, uncapped(8_000, 400), 400);
    expect(table.bins[0].confidence).toBeCloseTo(0.95, 2);
  });
});
