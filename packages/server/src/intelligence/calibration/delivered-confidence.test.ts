import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../training/quantile-gbdt.js";
import { calibrateJob } from "./calibrate-job.js";
import { fitConformal } from "./conformal.js";
import type { CalibrationExample, DeliveredRecord } from "./conformal-table.js";
import { recordDelivered, restateConfidence, withDelivered } from "./delivered-confidence.js";

function normal(rng: () => number): number {
  const u1 = Math.max(rng(), 1e-12);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng());
}

/** Jobs whose spread the model knows up to noise; `drift` widens their true spread by that factor. */
function examples(n: number, seed: number, drift = 1): CalibrationExample[] {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, () => {
    const sigma = 0.05 + rng();
    const m = rng() * 10;
    return { m, s: sigma * (0.8 + 0.4 * rng()), y: m + drift * sigma * normal(rng), logRequest: Number.NaN };
  });
}

/** Stated confidence against the share not under-predicted, over all recommended jobs. */
function statedAndMet(table: ReturnType<typeof fitConformal>, jobs: CalibrationExample[]) {
  let stated = 0;
  let met = 0;
  let n = 0;
  for (const e of jobs) {
    const r = calibrateJob(table, e);
    if (r.tooUncertain) continue;
    n++;
    stated += restateConfidence(table, r.confidence);
    if (e.y <= r.logValue) met++;
  }
  return { stated: stated / n, met: met / n, n };
}

describe("restated confidence", () => {
  it("states what the table's promises delivered once the site drifted, not what it measured in sample", () => {
    const table = fitConformal(examples(8_000, 1), { missRate: 0.02, abstainShare: 0.05 });
    // The site's jobs grew twice as erratic after the table was fitted.
    const served = examples(8_000, 2, 2);
    const before = statedAndMet(table, examples(8_000, 3, 2));
    expect(before.stated - before.met).toBeGreaterThan(0.04);
    const restated = withDelivered(table, recordDelivered(table, served));
    const after = statedAndMet(restated, examples(8_000, 3, 2));
    expect(after.n).toBe(before.n);
    expect(Math.abs(after.stated - after.met)).toBeLessThan(0.02);
    expect(Math.abs(after.stated - after.met)).toBeLessThan((before.stated - before.met) / 3);
  });

  it("states the calibrated confidence as it is until any job has ended", () => {
    const table = fitConformal(examples(2_000, 4), { missRate: 0.02 });
    expect(table.restated).toBeUndefined();
    expect(restateConfidence(table, 0.93)).toBe(0.93);
    const empty = withDelivered(table, recordDelivered(table, []));
    expect(restateConfidence(empty, 0.93)).toBe(0.93);
  });

  it("moves a promise only part of the way toward what a few ended jobs delivered", () => {
    const table = fitConformal(examples(2_000, 5), { missRate: 0.02 });
    const record: DeliveredRecord = {
      jobs: [5, ...new Array(12).fill(0)],
      met: new Array(13).fill(0),
      stated: [4.99],
    };
    record.stated.push(...new Array(12).fill(0));
    // Five jobs promised 99.8% and all five ran over: 100 pseudo-jobs near 99.8% outweigh them.
    const shown = restateConfidence(withDelivered(table, record), 0.998);
    expect(shown).toBeLessThan(0.95);
    expect(shown).toBeGreaterThan(0.85);
  });

  it("keeps at most maxJobs of the record, the older scaled down with the newer", () => {
    const table = fitConformal(examples(2_000, 6), { missRate: 0.02, abstainShare: 0 });
    const first = recordDelivered(table, examples(3_000, 7), { maxJobs: 4_000 });
    expect(first.jobs.reduce((a, b) => a + b, 0)).toBeCloseTo(3_000);
    const second = recordDelivered(withDelivered(table, first, { maxJobs: 4_000 }), examples(3_000, 8), {
      maxJobs: 4_000,
    });
    expect(second.jobs.reduce((a, b) => a + b, 0)).toBeCloseTo(4_000);
    second.jobs.forEach((n, k) => {
      expect(second.met[k]).toBeLessThanOrEqual(n + 1e-9);
    });
  });

  it("follows a drift that outlasts a few thousand ended jobs sooner with a smaller record", () => {
    const table = fitConformal(examples(8_000, 10), { missRate: 0.02, abstainShare: 0.05 });
    // A long calm spell, then a season of jobs half again as erratic, recorded a day at a time.
    const days = [
      ...Array.from({ length: 30 }, (_, d) => examples(500, 100 + d)),
      ...Array.from({ length: 30 }, (_, d) => examples(200, 200 + d, 1.5)),
    ];
    const follow = (options: { maxJobs?: number }) => {
      let served = table;
      for (const day of days) served = withDelivered(table, recordDelivered(served, day, options), options);
      const { stated, met } = statedAndMet(served, examples(8_000, 11, 1.5));
      return stated - met;
    };
    const small = follow({ maxJobs: 5_000 });
    const byDefault = follow({});
    expect(Math.abs(small)).toBeLessThan(0.01);
    expect(byDefault).toBeGreaterThan(2 * Math.abs(small));
  });

  it("never states less for a higher calibrated confidence, and stays a probability", () => {
    const table = fitConformal(examples(1_000, 9), { missRate: 0.02 });
    const bucket = fc.record({
      jobs: fc.integer({ min: 0, max: 5_000 }),
      met: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.array(bucket, { minLength: 13, maxLength: 13 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (buckets, a, b) => {
          // Bucket k holds stated misses around the middle of its own band.
          const mids = [0.001, 0.0035, 0.0075, 0.0125, 0.0175, 0.025, 0.04, 0.065, 0.1, 0.16, 0.25, 0.4, 0.7];
          const record: DeliveredRecord = {
            jobs: buckets.map((x) => x.jobs),
            met: buckets.map((x) => x.jobs * x.met),
            stated: buckets.map((x, k) => x.jobs * (1 - mids[k])),
          };
          const t = withDelivered(table, record);
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          const rl = restateConfidence(t, lo);
          const rh = restateConfidence(t, hi);
          return rl <= rh + 1e-12 && rl >= 0 && rh <= 1;
        },
      ),
      { numRuns: 300 },
    );
  });
});
