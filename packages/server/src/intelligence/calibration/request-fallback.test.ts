import { describe, expect, it } from "vitest";
import { mulberry32 } from "../training/quantile-gbdt.js";
import { calibrateJob } from "./calibrate-job.js";
import { fitConformal } from "./conformal.js";
import {
  applyConformal,
  type CalibrationExample,
  type ConformalTable,
  KEEP_REQUEST_GRACE,
  NO_GRACE,
} from "./conformal-table.js";
import { GROUP_FALLBACK_MIN_JOBS } from "./group-fallback.js";
import { applyRequestFallback, fitRequestFallback } from "./request-fallback.js";

/**
 * Calibration jobs: a well-modelled kind (spread 0.1), and a tenth the model knows little of
 * (centre off by up to ±1, spread 2), which it abstains on. None has a request.
 */
function examples(n: number, seed: number): CalibrationExample[] {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, (_, k) => {
    const y = k % 10 === 0 ? 7 + rng() : 6 + 2 * (rng() - 0.5);
    const wide = k % 10 === 0;
    return { m: y + (wide ? 2 : 0.1) * (rng() - 0.5), s: wide ? 2 : 0.1, y, logRequest: Number.NaN };
  });
}

/**
 * Jobs the model is unsure of (spread 2) but whose centre is right and whose requests sit up to
 * `over` (log) above their use; one in 250 used 10% more than it asked for, half are `held`.
 */
function asked(n: number, seed: number, over = 0.02): CalibrationExample[] {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, (_, k) => {
    const y = 7 + rng();
    const logRequest = k % 500 < 2 ? y - 0.1 : y + over * rng();
    return { m: y + 0.02 * (rng() - 0.5), s: 2, y, logRequest, held: k % 2 === 0 };
  });
}

/** `table` with the request fallback fitted on `abstained`. */
function withFallback(table: ConformalTable, abstained: CalibrationExample[]): ConformalTable {
  const requestFallback = fitRequestFallback(table, abstained, 0.01);
  return { ...table, ...(requestFallback && { requestFallback }) };
}

const options = { outOfTimeCheck: false };

describe("the request where the model and the group's record are too unsure", () => {
  it("is kept where it bounded the abstained jobs, and recommends about the request at the promised miss rate", () => {
    const table = withFallback(fitConformal(examples(8000, 1), options), asked(2000, 2));
    for (const band of [table.requestFallback?.held, table.requestFallback?.other]) {
      expect(band?.n).toBeGreaterThanOrEqual(GROUP_FALLBACK_MIN_JOBS);
      expect(band?.upper).toBeLessThanOrEqual(KEEP_REQUEST_GRACE);
    }
    let abstained = 0;
    let recommended = 0;
    let missed = 0;
    let inside = 0;
    const fresh = asked(4000, 3);
    for (const e of fresh) {
      const r = applyConformal(table, e.m, e.s, Number.NaN);
      if (!r.tooUncertain) continue;
      abstained++;
      const f = applyRequestFallback(table, r, e.m, e.logRequest, e.held === true);
      if (!f) continue;
      recommended++;
      expect(f).toMatchObject({ fromRequest: true, capped: true, tooUncertain: false });
      expect(f.logValue).toBeLessThanOrEqual(e.logRequest + KEEP_REQUEST_GRACE);
      expect(f.logLow).toBeLessThanOrEqual(f.logValue);
      if (e.y > f.logValue) missed++;
      if (e.y >= f.logLow && e.y <= f.logValue) inside++;
    }
    expect(abstained).toBeGreaterThan(0.9 * fresh.length);
    expect(recommended).toBeGreaterThan(0.9 * abstained);
    expect(missed / recommended).toBeLessThanOrEqual(0.02);
    const { held, other } = table.requestFallback!;
    expect(Math.abs(inside / recommended - (held!.confidence + other!.confidence) / 2)).toBeLessThan(0.03);
    // Served through calibrateJob where neither the cells' request rules nor a group record apply.
    const noCellRule = { ...table, bins: table.bins.map((b) => ({ ...b, grace: NO_GRACE, held: false })) };
    expect(calibrateJob(noCellRule, fresh[1]).fromRequest).toBe(true);
  });

  it("is not kept where requests fell short of such jobs too often: they still abstain", () => {
    const table = fitConformal(examples(8000, 4), options);
    const rng = mulberry32(5);
    // One in twenty used more than it asked for (2.5 times the miss rate).
    const short = asked(800, 6).map((e, k) => (k % 20 < 2 ? { ...e, logRequest: e.y - 0.5 } : e));
    expect(fitRequestFallback(table, short, 0.01)).toBeUndefined();
    expect(fitRequestFallback(table, asked(800, 6), 0.01)).toBeDefined();
    // Either band alone: the held jobs kept their requests, the others did not.
    const mixed = asked(800, 7).map((e) => (e.held ? e : { ...e, logRequest: e.y - 0.5 * rng() }));
    const f = fitRequestFallback(table, mixed, 0.01);
    expect(f?.held).toBeDefined();
    expect(f?.other).toBeUndefined();
    const noRequest = asked(800, 8).map((e) => ({ ...e, logRequest: Number.NaN }));
    expect(fitRequestFallback(table, noRequest, 0.01)).toBeUndefined();
    const r = applyConformal(table, 7.5, 2, Number.NaN);
    expect(r.tooUncertain).toBe(true);
    expect(applyRequestFallback({ ...table, requestFallback: f }, r, 7.5, 7.6, false)).toBeUndefined();
  });

  it("is the request exactly where limits are enforced, never above it, and not below the recent need", () => {
    const table = withFallback(fitConformal(examples(8000, 9), options, true), asked(2000, 10, 0));
    expect(table.requestFallback?.held?.upper).toBe(0);
    const r = applyConformal(table, 7.5, 2, Number.NaN);
    expect(r.tooUncertain).toBe(true);
    const atRequest = applyRequestFallback(table, r, 7.5, 7.4, true);
    expect(atRequest).toMatchObject({ logValue: 7.4, atRequest: true });
    expect(applyRequestFallback(table, r, 7.5, 7.4, true, 7.6)?.logValue).toBe(7.4);
    const unenforced = withFallback(fitConformal(examples(8000, 9), options), asked(2000, 10, 0));
    expect(applyRequestFallback(unenforced, r, 7.5, 7.4, true, 7.45)?.logValue).toBe(7.45);
    expect(applyRequestFallback(unenforced, r, 7.5, Number.NaN, true)).toBeUndefined();
  });

  it("is held to the abstention threshold, its waste measured from what such jobs used of their requests", () => {
    const table = withFallback(fitConformal(examples(8000, 11), options), asked(2000, 12));
    const r = applyConformal(table, 7.5, 2, Number.NaN);
    expect(r.tooUncertain).toBe(true);
    expect(applyRequestFallback(table, r, 7.5, 7.51, true)?.fromRequest).toBe(true);
    // Such jobs use about their requests: a request far from the model's unsure centre is still
    // the advice, not a waste.
    const far = applyRequestFallback(table, r, 7.5, 9, true);
    expect(far?.fromRequest).toBe(true);
    expect(far?.logValue).toBeCloseTo(9 + (table.requestFallback?.held?.upper ?? Number.NaN), 9);
    // Such jobs used a twentieth of their requests or all of them: about the request is kept for
    // a small one, and a large one, wasting as much as the threshold forbids, stays abstained.
    const wide = withFallback(table, asked(2000, 13, 3));
    const band = wide.requestFallback?.held;
    expect(band?.centre).toBeLessThan(-1);
    expect(applyRequestFallback(wide, r, 7.5, 4, true)?.fromRequest).toBe(true);
    expect(applyRequestFallback(wide, r, 7.5, 9, true)).toBeUndefined();
    expect(applyRequestFallback(wide, r, 7.5, 11, true)).toBeUndefined();
    // A band fitted before the centre was kept measures from the model's centre.
    const old = {
      ...table,
      requestFallback: { held: { ...table.requestFallback!.held!, centre: undefined } },
    };
    expect(applyRequestFallback(old, r, 7.5, 7.51, true)?.fromRequest).toBe(true);
    expect(applyRequestFallback(old, r, 7.5, 11, true)).toBeUndefined();
  });
});
