import { describe, expect, it } from "vitest";
import { mulberry32 } from "../training/quantile-gbdt.js";
import { fitConformal, keptShare } from "./conformal.js";
import { applyConformal, type CalibrationExample, KEEP_REQUEST_GRACE } from "./conformal-table.js";

/** Jobs that use a fifth to all of a request of e^6 (log scale), the model centred on their use. */
function examples(n: number, seed: number): CalibrationExample[] {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, () => {
    const y = 6 + Math.log(0.2 + 0.8 * rng());
    return { m: y + 0.1 * (rng() - 0.5), s: 0.1, y, logRequest: 6 };
  });
}

describe("a request kept where the value comes close to it", () => {
  const options = { abstainShare: 0, outOfTimeCheck: false };

  it("raises a value at or above the share to the request, over it by the grace where limits are not enforced", () => {
    const table = fitConformal(examples(4000, 1), options, false, 0.5);
    expect(keptShare(table)).toBeCloseTo(0.5);
    const near = applyConformal(table, Math.log(0.7) + 6, 0.1, 6);
    expect(near.logValue).toBeCloseTo(6 + KEEP_REQUEST_GRACE, 12);
    expect(near.capped).toBe(true);
    expect(near.atRequest).toBe(false);
    // Far below the share, the model's own value stands.
    const far = applyConformal(table, Math.log(0.1) + 6, 0.1, 6);
    expect(far.logValue).toBeLessThan(6 + Math.log(0.5));
    expect(far.capped).toBe(false);
    expect(far.logValue).toBe(far.logModelValue);
  });

  it("keeps exactly the request where the site enforces it", () => {
    const table = fitConformal(examples(4000, 2), options, true, 0.5);
    const near = applyConformal(table, Math.log(0.6) + 6, 0.1, 6);
    expect(near.logValue).toBe(6);
    expect(near.atRequest).toBe(true);
  });

  it("never applies without a request, without the setting, or with a share of 0", () => {
    const kept = fitConformal(examples(4000, 3), options, false, 0.5);
    const noRequest = applyConformal(kept, 5.9, 0.1, Number.NaN);
    expect(noRequest.logValue).toBe(noRequest.logModelValue);
    for (const table of [
      fitConformal(examples(4000, 3), options),
      fitConformal(examples(4000, 3), options, false, 0),
    ]) {
      expect(table.keepRequestFrom).toBeUndefined();
      const r = applyConformal(table, Math.log(0.7) + 6, 0.1, 6);
      expect(r.logValue).toBeLessThan(6);
    }
  });

  it("is judged too uncertain on the model's value, not on the kept request", () => {
    const plain = fitConformal(examples(4000, 4), { ...options, abstainShare: 0.1 });
    const kept = fitConformal(examples(4000, 4), { ...options, abstainShare: 0.1 }, false, 0.5);
    expect(kept.maxExcess).toBeCloseTo(plain.maxExcess, 9);
  });
});
