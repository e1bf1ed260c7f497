import { describe, expect, it } from "vitest";
import { HELD_MIN_JOBS, requestHeld } from "../model/recent-need.js";
import { mulberry32 } from "../training/quantile-gbdt.js";
import { fitConformal } from "./conformal.js";
import { applyConformal, type CalibrationExample, KEEP_REQUEST_GRACE } from "./conformal-table.js";

/**
 * A wide model (spread 0.5) over jobs of which half come from groups whose requests held: they ask
 * 1.3–2× what they use. `overrun` of the held ones use 3× their request instead. The other half ask
 * a third to three times what they use, so the request alone bounds no cell.
 */
function examples(n: number, seed: number, overrun = 0): CalibrationExample[] {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, (_, k) => {
    const y = 6 + 2 * (rng() - 0.5);
    const m = y + (rng() - 0.5);
    const held = k % 2 === 0;
    const over = held && rng() < overrun;
    const logRequest = held
      ? y + (over ? -Math.log(3) : Math.log(1.3 + 0.7 * rng()))
      : y + Math.log(1 / 3 + (3 - 1 / 3) * rng());
    return { m, s: 0.5, y, logRequest, held };
  });
}

const options = { abstainShare: 0, outOfTimeCheck: false };

describe("a group whose requests held is capped at its request where the cell trusts that", () => {
  it("caps a held job at its request plus the grace, with the cell's promise measured", () => {
    const ex = examples(6000, 1);
    const table = fitConformal(ex, options);
    expect(table.bins.some((b) => b.held)).toBe(true);
    const m = 6;
    const logRequest = 6.2;
    const free = applyConformal(table, m, 0.5, logRequest, true, Number.NaN, false);
    const held = applyConformal(table, m, 0.5, logRequest, true, Number.NaN, true);
    expect(free.logValue).toBeGreaterThan(logRequest + KEEP_REQUEST_GRACE);
    expect(held.logValue).toBeCloseTo(logRequest + KEEP_REQUEST_GRACE, 12);
    expect(held.capped).toBe(true);
    expect(held.atRequest).toBe(false);
    // No held job is left above its cap, and a capped value states the capped jobs' measured share.
    for (const e of ex.filter((x) => x.held)) {
      const r = applyConformal(table, e.m, e.s, e.logRequest, true, Number.NaN, true);
      expect(r.logValue).toBeLessThanOrEqual(e.logRequest + KEEP_REQUEST_GRACE);
    }
    expect(held.confidence).toBe(table.bins[held.bin].confidenceCapped);
  });

  it("keeps exactly the request where the site enforces it", () => {
    const table = fitConformal(examples(6000, 2), options, true);
    const held = applyConformal(table, 6, 0.5, 5.8, true, Number.NaN, true);
    expect(held.logValue).toBe(5.8);
    expect(held.atRequest).toBe(true);
  });

  it("is not trusted where held groups outran their requests beyond the cell's miss rate", () => {
    const table = fitConformal(examples(6000, 3, 0.05), options);
    expect(table.bins.every((b) => !b.held)).toBe(true);
    const free = applyConformal(table, 6, 0.5, 6.2, true, Number.NaN, false);
    const held = applyConformal(table, 6, 0.5, 6.2, true, Number.NaN, true);
    expect(held.logValue).toBe(free.logValue);
  });

  it("lowers the waste on the held jobs without more misses than promised", () => {
    const ex = examples(8000, 4);
    const table = fitConformal(ex.slice(0, 6000), options);
    const fresh = ex.slice(6000).filter((e) => e.held);
    let missed = 0;
    let overHeld = 0;
    let overFree = 0;
    for (const e of fresh) {
      const r = applyConformal(table, e.m, e.s, e.logRequest, true, Number.NaN, true);
      const f = applyConformal(table, e.m, e.s, e.logRequest, true, Number.NaN, false);
      if (e.y > r.logValue) missed++;
      overHeld += Math.exp(r.logValue) - Math.exp(e.y);
      overFree += Math.max(Math.exp(f.logValue) - Math.exp(e.y), 0);
    }
    expect(missed / fresh.length).toBeLessThanOrEqual(0.01);
    expect(overHeld).toBeLessThan(0.8 * overFree);
  });
});

describe("requestHeld", () => {
  const model = { featureNames: ["log_request", "app_count", "app_censored_max", "app_max_by_request"] };
  const row = (count: number, censored: number, need: number) => [
    0,
    Math.fround(Math.log1p(count)),
    censored,
    need,
  ];

  it("needs enough finished jobs, none killed, none over its request by more than the grace", () => {
    expect(requestHeld(model, row(HELD_MIN_JOBS, Number.NaN, 5.9), 6)).toBe(true);
    expect(requestHeld(model, row(HELD_MIN_JOBS, Number.NaN, Math.fround(6 + KEEP_REQUEST_GRACE)), 6)).toBe(
      true,
    );
    expect(requestHeld(model, row(HELD_MIN_JOBS - 1, Number.NaN, 5.9), 6)).toBe(false);
    expect(requestHeld(model, row(HELD_MIN_JOBS, 5.5, 5.9), 6)).toBe(false);
    expect(requestHeld(model, row(HELD_MIN_JOBS, Number.NaN, 6.1), 6)).toBe(false);
    expect(requestHeld(model, row(HELD_MIN_JOBS, Number.NaN, Number.NaN), 6)).toBe(false);
    expect(requestHeld(model, row(HELD_MIN_JOBS, Number.NaN, 5.9), Number.NaN)).toBe(false);
  });

  it("is false for a model without the group columns", () => {
    expect(requestHeld({ featureNames: ["log_request"] }, [6], 6)).toBe(false);
  });
});
