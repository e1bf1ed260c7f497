import { describe, expect, it } from "vitest";
import { inQuietHours, isTimeZone } from "./quiet-hours.js";

const berlinNight = { start: "22:00", end: "07:00", timeZone: "Europe/Berlin" };

describe("inQuietHours", () => {
  it("reads the hours on the user's clock, over midnight, start inside and end outside", () => {
    // Berlin is UTC+1 in December.
    expect(inQuietHours(berlinNight, new Date("2026-12-02T20:59:00Z"))).toBe(false);
    expect(inQuietHours(berlinNight, new Date("2026-12-02T21:00:00Z"))).toBe(true);
    expect(inQuietHours(berlinNight, new Date("2026-12-03T02:00:00Z"))).toBe(true);
    expect(inQuietHours(berlinNight, new Date("2026-12-03T06:00:00Z"))).toBe(false);
  });

  it("follows daylight saving time (UTC+2 in July)", () => {
    expect(inQuietHours(berlinNight, new Date("2026-07-02T20:30:00Z"))).toBe(true);
    expect(inQuietHours(berlinNight, new Date("2026-07-02T05:30:00Z"))).toBe(false);
  });

  it("handles hours within one day, and equal start and end as none", () => {
    const lunch = { start: "12:00", end: "13:00", timeZone: "UTC" };
    expect(inQuietHours(lunch, new Date("2026-12-02T12:30:00Z"))).toBe(true);
    expect(inQuietHours(lunch, new Date("2026-12-02T13:00:00Z"))).toBe(false);
    expect(
      inQuietHours({ start: "08:00", end: "08:00", timeZone: "UTC" }, new Date("2026-12-02T08:00:00Z")),
    ).toBe(false);
  });

  it("treats an unknown time zone as never quiet, and tells it apart", () => {
    expect(isTimeZone("America/New_York")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(inQuietHours({ ...berlinNight, timeZone: "Mars/Olympus" }, new Date("2026-12-02T23:00:00Z"))).toBe(
      false,
    );
  });
});
