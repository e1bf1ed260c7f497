import { describe, expect, it } from "vitest";
import { SendWindow } from "./send-window.js";

describe("SendWindow", () => {
  it("allows maxPerMinute sends in any 60 seconds", () => {
    const w = new SendWindow(2);
    expect([w.take(0), w.take(10_000), w.take(20_000)]).toEqual([true, true, false]);
    expect(w.take(60_000)).toBe(true);
    expect(w.take(65_000)).toBe(false);
    expect(w.take(70_000)).toBe(true);
  });
});

describe("SendWindow over a longer window", () => {
  it("counts sends over windowMs (an hour)", () => {
    const w = new SendWindow(1, 3_600_000);
    expect([w.take(0), w.take(60_000), w.take(3_599_999)]).toEqual([true, false, false]);
    expect(w.take(3_600_000)).toBe(true);
  });
});
