import { describe, expect, it } from "vitest";
import { lineageOf, newModelVersion, recalibratedVersion } from "./model-version.js";

describe("model versions", () => {
  it("names a trained model by its time and a random suffix", () => {
    const v = newModelVersion(new Date("2026-12-02T10:30:00.123Z"));
    expect(v).toMatch(/^20261202T103000Z-[0-9a-f]{6}$/);
    expect(lineageOf(v)).toEqual({ trained: v, revision: 0 });
  });

  it("numbers the calibration revisions of the same trees", () => {
    const v = "20261202T103000Z-3fa2c1";
    const c1 = recalibratedVersion(v);
    expect(c1).toBe(`${v}.c1`);
    expect(recalibratedVersion(c1)).toBe(`${v}.c2`);
    expect(lineageOf(`${v}.c12`)).toEqual({ trained: v, revision: 12 });
    // A version that merely contains `.c` is a trained one.
    expect(lineageOf("m.cx")).toEqual({ trained: "m.cx", revision: 0 });
  });
});
