import { describe, expect, it } from "vitest";
import { mulberry32 } from "../training/quantile-gbdt.js";
import { fitConformal } from "./conformal.js";
import { applyConformal, type CalibrationExample, NO_GRACE } from "./conformal-table.js";

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
      logRequest: Number.NaN,
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
      const r = applyConformal(table, e.m, e.s, e.logRequest);
      const b = perBin.get(r.bin) ?? { n: 0, miss: 0 };
      b.n++;
      if (e.y > r.logValue) b.miss++;
      perBin.set(r.bin, b);
      if (e.y >= r.logLow && e.y <= r.logValue) inRange++;
    }
    const total = [...perBin.values()].reduce((a, b) => a + b.miss, 0) / test.length;
    expect(total).toBeGreaterThan(0.012);
    expect(total).toBeLessThan(0.028);
    for (const b of perBin.values()) expect(b.miss / b.n).toBeLessThan(0.045);
    // [low, value]: 2% above the value, 1% below the low end.
    expect(table.nominalLevel).toBeCloseTo(0.97);
    expect(inRange / test.length).toBeGreaterThan(0.955);
    expect(inRange / test.length).toBeLessThan(0.985);
  });

  it("with usage weighting, also bounds the share of usage under-predicted", () => {
    const table = fitConformal(examples(20_000, 6), { missRate: 0.02, usageMissRate: 0.02, abstainShare: 0 });
    let missed = 0;
    let total = 0;
    let misses = 0;
    const test = examples(20_000, 7);
    for (const e of test) {
      const r = applyConformal(table, e.m, e.s, e.logRequest);
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
    const tight = applyConformal(table, 5, 0.06, Number.NaN);
    const wide = applyConformal(table, 5, 0.9, Number.NaN);
    expect(tight.logValue - 5).toBeLessThan(0.3);
    expect(wide.logValue - 5).toBeGreaterThan(1.5);
  });

  it("abstains on the widest share and never recommends above an enforced request", () => {
    const table = fitConformal(examples(20_000, 4), { abstainShare: 0.1 }, true);
    const test = examples(5_000, 5);
    const abstained = test.filter((e) => applyConformal(table, e.m, e.s, e.logRequest).tooUncertain).length;
    expect(abstained / test.length).toBeGreaterThan(0.07);
    expect(abstained / test.length).toBeLessThan(0.13);
    const capped = applyConformal(table, 5, 0.5, 5.1);
    expect(capped.logValue).toBe(5.1);
    expect(capped.capped).toBe(true);
    expect(capped.atRequest).toBe(true);
    expect(capped.logLow).toBeLessThanOrEqual(capped.logValue);
    // Not enforced, and requests never bound these jobs: the request is no candidate.
    const free = fitConformal(examples(20_000, 4), { abstainShare: 0.1 });
    expect(applyConformal(free, 5, 0.5, 5.1).logValue).toBeGreaterThan(5.1);
  });
});

describe("fitConformal, the request as a candidate", () => {
  /** Jobs that almost always stay within their request, which the model cannot see well. */
  function requested(n: number, seed: number, outrun: number): CalibrationExample[] {
    const rng = mulberry32(seed);
    return Array.from({ length: n }, () => {
      const m = rng() * 8;
      const s = 0.3 + rng() * 0.5;
      const logRequest = m + 0.4 + rng() * 0.2;
      const y = rng() < outrun ? logRequest + 0.5 : Math.min(m + s * normal(rng), logRequest);
      return { m, s, y, logRequest };
    });
  }

  it("recommends the request where it bounds the jobs at the same risk, with less slack", () => {
    const opts = { abstainShare: 0, usageMissRate: 0, missRate: 0.01, outOfTimeCheck: false };
    const table = fitConformal(requested(20_000, 11, 0.002), opts);
    const alone = fitConformal(
      requested(20_000, 11, 0.002).map((e) => ({ ...e, logRequest: Number.NaN })),
      opts,
    );
    const test = requested(20_000, 12, 0.002);
    const tally = (t: typeof table, withRequest: boolean) => {
      let miss = 0;
      let slack = 0;
      let byRequest = 0;
      for (const e of test) {
        const r = applyConformal(t, e.m, e.s, withRequest ? e.logRequest : Number.NaN);
        if (e.y > r.logValue) miss++;
        slack += Math.max(Math.exp(r.logValue) - Math.exp(e.y), 0);
        if (r.capped) byRequest++;
      }
      return { miss: miss / test.length, slack, byRequest };
    };
    const joint = tally(table, true);
    const model = tally(alone, false);
    expect(table.bins.some((b) => b.grace <= 0)).toBe(true);
    expect(joint.byRequest).toBeGreaterThan(test.length / 2);
    expect(joint.slack).toBeLessThan(model.slack * 0.8);
    expect(joint.miss).toBeLessThan(0.016);
  });

  it("keeps the model alone where the request is outrun too often to be a bound", () => {
    const opts = { abstainShare: 0, usageMissRate: 0, missRate: 0.01, outOfTimeCheck: false };
    const table = fitConformal(requested(20_000, 13, 0.05), opts);
    // 5% outrun their request by e^0.5: no grace below that keeps the misses at 1%.
    for (const b of table.bins) expect(b.grace === NO_GRACE || b.grace >= 0.5).toBe(true);
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
      return { m, s, y: m + (erratic ? 3 : 1) * s * normal(rng), logRequest: Number.NaN };
    });
    const table = fitConformal(ex, { abstainShare: 0.08, usageMissRate: 0, outOfTimeCheck: false });
    const perBin = new Map<number, { n: number; miss: number }>();
    for (const e of ex) {
      const r = applyConformal(table, e.m, e.s, e.logRequest);
      if (r.tooUncertain) continue;
      const b = perBin.get(r.bin) ?? { n: 0, miss: 0 };
      b.n++;
      if (e.y > r.logValue) b.miss++;
      perBin.set(r.bin, b);
    }
    for (const b of perBin.values()) if (b.n >= 50) expect(b.miss / b.n).toBeLessThan(0.03);
  });
});

describe("fitConformal with recent-need floors", () => {
  /** A third of the jobs have a floor at or above what they use. */
  function floored(n: number, seed: number): CalibrationExample[] {
    const rng = mulberry32(seed);
    return examples(n, seed + 100).map((e) => (rng() < 1 / 3 ? { ...e, need: e.y + 0.3 * rng() } : e));
  }

  it("keeps the values of the model and states the coverage the floors add as measured", () => {
    const options = { missRate: 0.05, abstainShare: 0, usageMissRate: 0 };
    const withFloors = fitConformal(floored(20_000, 11), options);
    const without = fitConformal(
      floored(20_000, 11).map((e) => ({ ...e, need: undefined })),
      options,
    );
    // The same upper scores: floors only lift values, so they do not lower the model's own.
    expect(withFloors.bins.map((b) => b.upper)).toEqual(without.bins.map((b) => b.upper));
    const test = floored(20_000, 12);
    let inRange = 0;
    let stated = 0;
    for (const e of test) {
      const r = applyConformal(withFloors, e.m, e.s, e.logRequest, true, e.need);
      if (e.need !== undefined) expect(r.logValue).toBeGreaterThanOrEqual(e.need);
      if (e.y <= r.logValue && e.y >= r.logLow) inRange++;
      stated += r.confidence;
    }
    // The stated confidence is the measured coverage of the values served (floors included)...
    expect(Math.abs(stated / test.length - inRange / test.length)).toBeLessThan(0.01);
    // ...which the floors raise above the table fitted without them.
    const plainStated = test.reduce(
      (sum, e) => sum + applyConformal(without, e.m, e.s, e.logRequest).confidence,
      0,
    );
    expect(stated / test.length).toBeGreaterThan(plainStated / test.length + 0.01);
  });

  it("lifts a value to the floor as the model's own value, and to the request where limits are enforced", () => {
    const table = fitConformal(examples(5_000, 21), { missRate: 0.02, abstainShare: 0 });
    const plain = applyConformal(table, 5, 0.3, Number.NaN);
    expect(applyConformal(table, 5, 0.3, Number.NaN, true, 0).logValue).toBe(plain.logValue);
    const lifted = applyConformal(table, 5, 0.3, Math.log(1e6), true, plain.logValue + 1);
    expect(lifted.logValue).toBe(plain.logValue + 1);
    // The floor lifts only the value: the range keeps the model's own low end.
    expect(lifted.logLow).toBe(plain.logLow);
    expect(lifted.capped).toBe(false);
    expect(lifted.atRequest).toBe(false);
    const enforced = { ...table, enforcedLimit: true };
    // A request below the model's low end caps the value and the range; a floor above it then
    // lifts the value only, so the range still reaches down to the request.
    const below = plain.logLow - 0.5;
    const liftedFromCap = applyConformal(enforced, 5, 0.3, below, true, plain.logValue + 1);
    expect(liftedFromCap.logValue).toBe(plain.logValue + 1);
    expect(liftedFromCap.logLow).toBe(below);
    const logRequest = plain.logValue + 1;
    const atRequest = applyConformal(enforced, 5, 0.3, logRequest, true, logRequest);
    expect(atRequest.logValue).toBe(logRequest);
    expect(atRequest.atRequest).toBe(true);
  });
});
