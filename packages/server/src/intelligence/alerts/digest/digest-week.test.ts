import { describe, expect, it } from "vitest";
import { lastWholeWeek } from "./digest-week.js";

const iso = (w: { start: Date; end: Date }) => [w.start.toISOString(), w.end.toISOString()];

describe("lastWholeWeek", () => {
  it("is the Monday-to-Monday UTC week before the current one", () => {
    // 2026-12-09 is a Wednesday.
    expect(iso(lastWholeWeek(new Date("2026-12-09T08:00:00Z")))).toEqual([
      "2026-11-30T00:00:00.000Z",
      "2026-12-07T00:00:00.000Z",
    ]);
  });

  it("starts a new week at Monday 00:00 UTC, and Sunday still belongs to the old one", () => {
    expect(iso(lastWholeWeek(new Date("2026-12-07T00:00:00Z")))[1]).toBe("2026-12-07T00:00:00.000Z");
    expect(iso(lastWholeWeek(new Date("2026-12-06T23:59:59Z")))[1]).toBe("2026-11-30T00:00:00.000Z");
  });
});
