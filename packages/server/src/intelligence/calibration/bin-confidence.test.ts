import { describe, expect, it } from "vitest";
import { fitBinConfidence } from "./bin-confidence.js";
import type { CalibrationExample, ConformalTable } from "./conformal-table.js";

/** One cell whose recommended value is its centre + 2 spreads; it recommends for every job. */
function oneCell(): ConformalTable {
  return {
    missRate: 0.008,
    usageMissRate: 0,
    nominalLevel: 0.9,
    spreadFloor: 0.02,
    binEdges: [],
    sizeEdges: [],
    bins: [{ n: 0, upper: 2, low: -2, high: 2, confidence: Number.NaN, confidenceCapped: Number.NaN }],
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
    logCap: Number.POSITIVE_INFINITY,
  }));
}

describe("fitBinConfidence", () => {
  it("does not let the few uncapped jobs of a mostly capped cell promise little", () => {
    const table = oneCell();
    // 400 jobs held by their cap (none missed) and 20 uncapped, four of them missed.
    const capped = Array.from({ length: 400 }, () => ({ m: 0, s: 1, y: 0.5, logCap: 1 }));
    fitBinConfidence(table, [...capped, ...uncapped(20, 4)], 400);
    expect(table.bins[0].confidence).toBeGreaterThan(0.97);
    expect(table.bins[0].confidenceCapped).toBeGreaterThan(0.99);
  });

  it("follows a cell's own rate once it rests on many more jobs than the prior", () => {
    const table = oneCell();
    fitBinConfidence(table, uncapped(8_000, 400), 400);
    expect(table.bins[0].confidence).toBeCloseTo(0.95, 2);
  });
});
