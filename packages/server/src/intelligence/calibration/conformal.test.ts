import { describe, expect, it } from "vitest";
import { mulberry32 } from "../training/quantile-gbdt.js";
import { fitConformal } from "./conformal.js";
import { applyConformal, type CalibrationExample } from "./conformal-table.js";

function normal(rng: () => number): number {
  const u1 = Math.max(rng(), 1e-12);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng());
}

/** Jobs whose true spread varies 20-fold; the model's spread estimate is right up to noise. */
function examples(n: number, seed: number): CalibrationExample[] {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, () => {
    const sigma = 0.05 + rng();
    const m = rng() * 10;
    return {
      m,
      s: sigma * (0.8 + 0.4 * rng()),
      y: m + sigma * normal(rng),
      logCap: Number.POSITIVE_INFINITY,
    };
  });
}

describe("fitConformal", () => {
  it("reaches the nominal miss rate and range coverage on fresh data, in every spread bin", () => {
    const table = fitConformal(examples(20_000, 1), { missRate: 0.02, abstainShare: 0, usageMissRate: 0 });
    const test = examples(20_000, 2);
    const perBin = new Map<number, { n: number; miss: number }>();
    let inRange = 0;
    for (const e of test) {
      const r = applyConformal(table, e.m, e.s, e.logCap);
      const b = perBin.get(r.bin) ?? { n: 0, miss: 0 };
      b.n++;
      if (e.y > r.logValue) b.miss++;
      perBin.set(r.bin, b);
      if (e.y >= r.logLow && e.y <= r.logHigh) inRange++;
    }
    const total = [...perBin.values()].reduce((a, b) => a + b.miss, 0) / test.length;
    expect(total).toBeGreaterThan(0.012);
    expect(total).toBeLessThan(0.028);
    for (const b of perBin.values()) expect(b.miss / b.n).toBeLessThan(0.045);
    expect(inRange / test.length).toBeGreaterThan(0.88);
    expect(inRange / test.length).toBeLessThan(0.92);
  });

  it("with usage weighting, also bounds the share of usage under-predicted", () => {
    const table = fitConformal(examples(20_000, 6), { missRate: 0.02, usageMissRate: 0.02, abstainShare: 0 });
    let missed = 0;
    let total = 0;
    let misses = 0;
    const test = examples(20_000, 7);
    for (const e of test) {
      const r = applyConformal(table, e.m, e.s, e.logCap);
      total += Math.exp(e.y);
      if (e.y > r.logValue) {
        missed += Math.exp(e.y);
        misses++;
      }
    }
    expect(missed / total).toBeLessThan(0.03);
    expect(misses / test.length).toBeLessThan(0.02);
  });

  it("gives tight bounds to repetitive jobs and wide ones to erratic jobs", () => {
    const table = fitConformal(examples(20_000, 3), { abstainShare: 0 });
    const tight = applyConformal(table, 5, 0.06, Number.POSITIVE_INFINITY);
    const wide = applyConformal(table, 5, 0.9, Number.POSITIVE_INFINITY);
    expect(tight.logValue - 5).toBeLessThan(0.3);
    expect(wide.logValue - 5).toBeGreaterThan(1.5);
  });

  it("abstains on the widest share and never recommends above an enforced cap", () => {
    const table = fitConformal(examples(20_000, 4), { abstainShare: 0.1 });
    const test = examples(5_000, 5);
    const abstained = test.filter((e) => applyConformal(table, e.m, e.s, e.logCap).tooUncertain).length;
    expect(abstained / test.length).toBeGreaterThan(0.07);
    expect(abstained / test.length).toBeLessThan(0.13);
    const capped = applyConformal(table, 5, 0.5, 5.1);
    expect(capped.logValue).toBe(5.1);
    expect(capped.capped).toBe(true);
    expect(capped.logHigh).toBeLessThanOrEqual(5.1);
  });
});

describe("fitConformal abstention", () => {
  it("does not let back in, with tight bounds, the hard jobs of a cell it nearly emptied", () => {
    const rng = mulberry32(8);
    // Most jobs are regular; the biggest, widest ones are erratic and mostly abstained on.
    const ex: CalibrationExample[] = Array.from({ length: 20_000 }, () => {
      const erratic = rng() < 0.07;
      const m = erratic ? 8 + rng() : rng() * 8;
      const s = erratic ? 1 + rng() : 0.05 + rng() * 1.5;
      return { m, s, y: m + (erratic ? 3 : 1) * s * normal(rng), logCap: Number.POSITIVE_INFINITY };
    });
    const table = fitConformal(ex, { abstainShare: 0.08, usageMissRate: 0, outOfTimeCheck: false });
    const perBin = new Map<number, { n: number; miss: number }>();
    for (const e of ex) {
      const r = applyConformal(table, e.m, e.s, e.logCap);
      if (r.tooUncertain) continue;
      const b = perBin.get(r.bin) ?? { n: 0, miss: 0 };
      b.n++;
      if (e.y > r.logValue) b.miss++;
      perBin.set(r.bin, b);
    }
    for (const b of perBin.values()) if (b.n >= 50) expect(b.miss / b.n).toBeLessThan(0.03);
  });
});
