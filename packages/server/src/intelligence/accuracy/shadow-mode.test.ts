import { describe, expect, it } from "vitest";
import { modeAt } from "./shadow-mode.js";

describe("modeAt", () => {
  const first = new Date("2026-11-01T00:00:00Z");
  it("is shadow for the configured days from the first start, then live", () => {
    expect(modeAt(new Date("2026-11-30T23:59:59Z"), first, "auto", 30)).toEqual({
      mode: "shadow",
      shadowUntil: "2026-12-01T00:00:00.000Z",
    });
    expect(modeAt(new Date("2026-12-01T00:00:00Z"), first, "auto", 30)).toEqual({ mode: "live" });
  });

  it("can be forced either way", () => {
    expect(modeAt(new Date("2026-11-02T00:00:00Z"), first, "live", 30)).toEqual({ mode: "live" });
    expect(modeAt(new Date("2027-11-02T00:00:00Z"), first, "shadow", 30)).toEqual({ mode: "shadow" });
  });
});
