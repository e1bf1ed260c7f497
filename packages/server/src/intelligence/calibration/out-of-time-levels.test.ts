import { describe, expect, it } from "vitest";
import { mulberry32 } from "../training/quantile-gbdt.js";
import { fitConformal } from "./conformal.js";
import { applyConformal, type CalibrationExample } from "./conformal-table.js";
import { excessOver } from "./out-of-time-levels.js";

function normal(rng: () => number): number {
  const u1 = Math.max(rng(), 1e-12);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng());
}

/** Jobs in end order whose real spread grows by `drift` (×) from the first to the last. */
function examples(n: number, seed: number, drift = 1): CalibrationExample[] {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, (_, k) => {
    const sigma = 0.1 + rng() * 0.5;
    const m = rng() * 8;
    const widen = 1 + ((drift - 1) * k) / n;
    return { m, s: sigma, y: m + sigma * widen * normal(rng), logRequest: Number.NaN };
  });
}

function rangeCoverage(table: ReturnType<typeof fitConformal>, test: CalibrationExample[]): number {
  let inside = 0;
  for (const e of test) {
    const r = applyConformal(table, e.m, e.s, e.logRequest, false);
    if (e.y >= r.logLow && e.y <= r.logValue) inside++;
  }
  return inside / test.length;
}

const options = { abstainShare: 0, usageMissRate: 0, missRate: 0.02 };

describe("out-of-time levels", () => {
  it("keep about the nominal range coverage when the workload does not drift", () => {
    const table = fitConformal(examples(12_000, 1), options);
    const coverage = rangeCoverage(table, examples(20_000, 2));
    expect(coverage).toBeGreaterThan(0.955);
    expect(coverage).toBeLessThan(0.985);
    expect(table.nominalLevel).toBeCloseTo(0.97);
  });

  it("widen the range of a drifting workload, which in-sample levels under-cover", () => {
    const pool = examples(12_000, 3, 1.6);
    // What comes next keeps drifting: spreads 1.6× to 2× the oldest ones.
    const next = examples(4_000, 4).map((e) => ({ ...e, y: e.m + (e.y - e.m) * 1.8 }));
    const corrected = rangeCoverage(fitConformal(pool, options), next);
    const inSample = rangeCoverage(fitConformal(pool, { ...options, outOfTimeCheck: false }), next);
    expect(corrected).toBeGreaterThan(inSample + 0.02);
  });

  it("never loosens the upper bound, even where the newer half would allow it", () => {
    // Spreads shrink over time: looser upper levels would pass on the newer half, but a miss kills
    // a job, so the bound stays at its nominal level while the range may narrow.
    const pool = examples(12_000, 5, 0.4);
    const corrected = fitConformal(pool, options);
    const inSample = fitConformal(pool, { ...options, outOfTimeCheck: false });
    corrected.bins.forEach((b, k) => {
      expect(b.upper).toBeGreaterThanOrEqual(inSample.bins[k].upper);
      expect(b.low).toBeGreaterThanOrEqual(inSample.bins[k].low);
    });
  });
});

describe("out-of-time levels, against noise", () => {
  it("keep the nominal levels of a workload that does not drift", () => {
    const pool = examples(12_000, 6);
    const opts = { abstainShare: 0.08, missRate: 0.008, usageMissRate: 0.015 };
    const corrected = fitConformal(pool, opts);
    const inSample = fitConformal(pool, { ...opts, outOfTimeCheck: false });
    expect(corrected.bins.map((b) => b.upper)).toEqual(inSample.bins.map((b) => b.upper));
  });

  it("do not tighten for one big job that no level would have caught", () => {
    const pool = examples(12_000, 7);
    const newerUsage = pool.slice(6_000).reduce((sum, e) => sum + Math.exp(e.y), 0);
    // The last job alone holds 3% of the newer half's usage and needs e^4 times its centre: the
    // newer half misses twice the nominal 1.5% of its usage, all of it on that one job.
    const y = Math.log(0.03 * newerUsage);
    pool[pool.length - 1] = { m: y - 4, s: 0.3, y, logRequest: Number.NaN };
    const opts = { abstainShare: 0, missRate: 0.008, usageMissRate: 0.015 };
    const corrected = fitConformal(pool, opts);
    const inSample = fitConformal(pool, { ...opts, outOfTimeCheck: false });
    expect(corrected.bins.map((b) => b.upper)).toEqual(inSample.bins.map((b) => b.upper));
  });

  it("tighten the upper bound when the newer jobs miss more than noise explains", () => {
    const pool = examples(12_000, 8, 1.6);
    const opts = { abstainShare: 0, missRate: 0.008, usageMissRate: 0.015 };
    const corrected = fitConformal(pool, opts);
    const inSample = fitConformal(pool, { ...opts, outOfTimeCheck: false });
    const wider = corrected.bins.filter((b, k) => b.upper > inSample.bins[k].upper + 1e-9).length;
    expect(wider).toBeGreaterThan(corrected.bins.length / 2);
  });
});

describe("excessOver", () => {
  it("reads a share as noisy as its heaviest missed job is heavy", () => {
    // 3% of the usage missed, by one job of that weight among 1,000 of weight ~1.
    const oneJob = excessOver(0.015, 1_000, 1_000 - 30 + 30 ** 2, 30, 30 ** 2);
    // The same 3%, missed by 30 ordinary jobs.
    const manyJobs = excessOver(0.015, 1_000, 1_000, 30, 30);
    expect(oneJob).toBeLessThan(1.645);
    expect(manyJobs).toBeGreaterThan(1.645);
  });

  it("is no excess at or under the nominal share", () => {
    expect(excessOver(0.01, 10_000, 10_000, 100, 100)).toBe(0);
    expect(excessOver(0.01, 10_000, 10_000, 50, 50)).toBeLessThan(0);
  });
});
