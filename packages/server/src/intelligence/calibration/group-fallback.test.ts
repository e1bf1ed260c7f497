import { describe, expect, it } from "vitest";
import { GROUP_MIN_JOBS, groupRecord } from "../model/recent-need.js";
import { mulberry32 } from "../training/quantile-gbdt.js";
import { fitConformal } from "./conformal.js";
import { applyConformal, type CalibrationExample } from "./conformal-table.js";
import { applyGroupFallback, GROUP_FALLBACK_MIN_JOBS } from "./group-fallback.js";

/**
 * Jobs of a well-modelled kind (spread 0.1), and a tenth from repetitive groups the model knows
 * little of (centre off by up to ±1, spread 2) but whose recent jobs used within 20% of what they use.
 */
function examples(n: number, seed: number): CalibrationExample[] {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, (_, k) => {
    if (k % 10 === 0) {
      const y = 7 + rng();
      return {
        m: y + 2 * (rng() - 0.5),
        s: 2,
        y,
        logRequest: Number.NaN,
        group: y + Math.log(0.8 + 0.4 * rng()),
      };
    }
    const y = 6 + 2 * (rng() - 0.5);
    return { m: y + 0.1 * (rng() - 0.5), s: 0.1, y, logRequest: Number.NaN, group: Number.NaN };
  });
}

const options = { outOfTimeCheck: false };

describe("the group's record where the model is too unsure", () => {
  it("is calibrated on the abstained jobs and recommends for them at the promised miss rate", () => {
    const table = fitConformal(examples(8000, 1), options);
    const f = table.groupFallback;
    expect(f).toBeDefined();
    expect(f?.n).toBeGreaterThanOrEqual(GROUP_FALLBACK_MIN_JOBS);
    let abstained = 0;
    let recommended = 0;
    let missed = 0;
    let inside = 0;
    const fresh = examples(6000, 2).filter((e) => Number.isFinite(e.group));
    for (const e of fresh) {
      const r = applyConformal(table, e.m, e.s, e.logRequest);
      if (!r.tooUncertain) continue;
      abstained++;
      const g = applyGroupFallback(table, r, e.m, e.group ?? Number.NaN, e.logRequest);
      if (!g) continue;
      recommended++;
      expect(g.fromGroup).toBe(true);
      expect(g.logLow).toBeLessThanOrEqual(g.logValue);
      if (e.y > g.logValue) missed++;
      if (e.y >= g.logLow && e.y <= g.logValue) inside++;
    }
    expect(abstained).toBeGreaterThan(fresh.length / 2);
    // A few stay abstained: their record is further above the model than the threshold allows.
    expect(recommended).toBeGreaterThan(0.9 * abstained);
    expect(missed / recommended).toBeLessThanOrEqual(0.02);
    expect(Math.abs(inside / recommended - (f?.confidence ?? 0))).toBeLessThan(0.03);
  });

  it("leaves a job without a record abstaining, and a table without enough such jobs has none", () => {
    const table = fitConformal(examples(8000, 3), options);
    const r = applyConformal(table, 7.5, 2, Number.NaN);
    expect(r.tooUncertain).toBe(true);
    expect(applyGroupFallback(table, r, 7.5, Number.NaN, Number.NaN)).toBeUndefined();
    const few = examples(8000, 4).map((e, k) => (k % 100 === 0 ? e : { ...e, group: Number.NaN }));
    expect(fitConformal(few, options).groupFallback).toBeUndefined();
  });

  it("never goes above the request where limits are enforced, nor below the recent need", () => {
    const table = fitConformal(examples(8000, 5), options, true);
    const r = applyConformal(table, 7.5, 2, Number.NaN);
    const capped = applyGroupFallback(table, r, 7.5, 7.5, 7.2);
    expect(capped?.logValue).toBe(7.2);
    expect(capped?.atRequest).toBe(true);
    const floored = applyGroupFallback(table, r, 7.5, 7, 9, 7.9);
    expect(floored?.logValue).toBe(7.9);
  });
});

describe("groupRecord", () => {
  const model = { featureNames: ["app_count", "app_max", "app_censored_max"] };
  const row = (count: number, max: number, killed: number) => [Math.fround(Math.log1p(count)), max, killed];

  it("is the group's largest recent use, killed jobs included, once it has enough jobs", () => {
    expect(groupRecord(model, row(GROUP_MIN_JOBS, 5, Number.NaN))).toBe(5);
    expect(groupRecord(model, row(GROUP_MIN_JOBS, 5, 6))).toBe(6);
    expect(groupRecord(model, row(GROUP_MIN_JOBS - 1, 5, Number.NaN))).toBeNaN();
    expect(groupRecord(model, row(GROUP_MIN_JOBS, Number.NaN, Number.NaN))).toBeNaN();
    expect(groupRecord({ featureNames: ["app_max"] }, [5])).toBeNaN();
  });
});

/**
 * Abstained jobs of two kinds of group: repetitive ones (recent uses within 5%, spread 0.02) and
 * erratic ones (spread 0.8, using up to e^1.6 more than their record).
 */
function mixedGroups(n: number, seed: number): CalibrationExample[] {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, (_, k) => {
    const y = 7 + rng();
    if (k % 10 === 0) {
      const s = 2;
      const m = y + 2 * (rng() - 0.5);
      return { m, s, y, logRequest: Number.NaN, group: y - 0.05 * rng(), groupSpread: 0.02 };
    }
    if (k % 10 === 1) {
      return {
        m: y + 2 * (rng() - 0.5),
        s: 2,
        y,
        logRequest: Number.NaN,
        group: y - 1.6 * rng(),
        groupSpread: 0.8,
      };
    }
    const w = 6 + 2 * (rng() - 0.5);
    return { m: w + 0.1 * (rng() - 0.5), s: 0.1, y: w, logRequest: Number.NaN, group: Number.NaN };
  });
}

describe("the group's record, by how much the group's uses vary", () => {
  it("gives a repetitive group a margin its own jobs bear out, not an erratic group's", () => {
    const table = fitConformal(mixedGroups(10_000, 7), options);
    const f = table.groupFallback;
    expect(f?.bySpread?.bands.length).toBeGreaterThanOrEqual(2);
    const fresh = mixedGroups(10_000, 8).filter((e) => Number.isFinite(e.group));
    const by = new Map<number, { n: number; missed: number; inside: number; margin: number[] }>();
    for (const e of fresh) {
      const r = applyConformal(table, e.m, e.s, e.logRequest);
      if (!r.tooUncertain) continue;
      const g = applyGroupFallback(table, r, e.m, e.group ?? 0, e.logRequest, Number.NaN, e.groupSpread);
      if (!g) continue;
      const key = e.groupSpread ?? 0;
      const b = by.get(key) ?? { n: 0, missed: 0, inside: 0, margin: [] };
      b.n++;
      if (e.y > g.logValue) b.missed++;
      if (e.y >= g.logLow && e.y <= g.logValue) b.inside++;
      b.margin.push(g.logValue - (e.group ?? 0));
      by.set(key, b);
    }
    const steady = by.get(0.02)!;
    const erratic = by.get(0.8)!;
    expect(steady.n).toBeGreaterThan(300);
    expect(erratic.n).toBeGreaterThan(300);
    // The pooled margin would be the erratic groups' (about 1.6); the steady ones get about 0.05.
    expect(Math.max(...steady.margin)).toBeLessThan(0.1);
    expect(Math.min(...erratic.margin)).toBeGreaterThan(1.4);
    for (const b of [steady, erratic]) expect(b.missed / b.n).toBeLessThanOrEqual(0.02);
    // Each band's stated confidence is what its own jobs measure.
    const conf = (spread: number) =>
      applyGroupFallback(
        table,
        applyConformal(table, 9, 2, Number.NaN),
        9,
        7.4,
        Number.NaN,
        Number.NaN,
        spread,
      )?.confidence ?? Number.NaN;
    expect(Math.abs(steady.inside / steady.n - conf(0.02))).toBeLessThan(0.03);
    expect(Math.abs(erratic.inside / erratic.n - conf(0.8))).toBeLessThan(0.03);
  });

  it("uses the pooled margin where the group's spread is unknown", () => {
    const table = fitConformal(mixedGroups(10_000, 9), options);
    const r = applyConformal(table, 9, 2, Number.NaN);
    expect(r.tooUncertain).toBe(true);
    const pooled = applyGroupFallback(table, r, 9, 7.4, Number.NaN);
    expect(pooled?.logValue).toBeCloseTo(7.4 + (table.groupFallback?.upper ?? Number.NaN), 9);
  });
});
