import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { float32AtMost } from "./float32.js";

describe("float32AtMost", () => {
  it("is a float32 no larger than x that puts every float32 on the same side of x", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.float({ noNaN: true }), (x, v) => {
        const t = float32AtMost(x);
        expect(Math.fround(t)).toBe(t);
        expect(t).toBeLessThanOrEqual(x);
        expect(v <= t).toBe(v <= x);
      }),
      { numRuns: 5000 },
    );
  });

  it("rounds down where Math.fround rounds up", () => {
    expect(Math.fround(0.1)).toBeGreaterThan(0.1);
    expect(float32AtMost(0.1)).toBeLessThan(0.1);
    expect(float32AtMost(-1e-50)).toBeLessThan(0);
    expect(float32AtMost(3.5e38)).toBe(3.4028234663852886e38);
    expect(float32AtMost(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    expect(float32AtMost(Number.NaN)).toBeNaN();
  });
});
