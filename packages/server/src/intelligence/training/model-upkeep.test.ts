import { describe, expect, it } from "vitest";
import { isDue } from "./model-upkeep.js";

const HOUR = 3_600_000;
const NOW = Date.parse("2026-12-06T12:00:00Z");

describe("isDue", () => {
  it("is due when nothing was ever recorded or tried", () => {
    expect(isDue(undefined, undefined, 24 * HOUR, NOW)).toBe(true);
  });

  it("counts from a model another replica recorded, so a new leader does not train again at once", () => {
    expect(isDue(NOW - 2 * HOUR, undefined, 24 * HOUR, NOW)).toBe(false);
    expect(isDue(NOW - 24 * HOUR, undefined, 24 * HOUR, NOW)).toBe(true);
  });

  it("counts from this server's own attempt when it recorded nothing (too few jobs)", () => {
    expect(isDue(undefined, NOW - HOUR, 24 * HOUR, NOW)).toBe(false);
    expect(isDue(NOW - 48 * HOUR, NOW - HOUR, 24 * HOUR, NOW)).toBe(false);
    expect(isDue(NOW - 48 * HOUR, NOW - 25 * HOUR, 24 * HOUR, NOW)).toBe(true);
  });
});
