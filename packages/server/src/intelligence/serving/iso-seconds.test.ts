import { describe, expect, it } from "vitest";
import { isoSeconds } from "./iso-seconds.js";

describe("isoSeconds", () => {
  it("formats seconds as Date does, fractions included, also once asked before", () => {
    for (const s of [0, 1, 1.5, 784_512_000.123, 1_733_000_000, -86_400]) {
      const expected = new Date(s * 1000).toISOString();
      expect(isoSeconds(s)).toBe(expected);
      expect(isoSeconds(s)).toBe(expected);
    }
  });

  it("stays right past its bound", () => {
    for (let s = 0; s < 10_000; s += 1)
      expect(isoSeconds(s * 3600)).toBe(new Date(s * 3_600_000).toISOString());
    expect(isoSeconds(7)).toBe("1970-01-01T00:00:07.000Z");
  });

  it("throws as Date does for an instant out of range", () => {
    expect(() => isoSeconds(Number.NaN)).toThrow(RangeError);
    expect(() => isoSeconds(Number.NaN)).toThrow(RangeError);
  });
});
