import { describe, expect, it } from "vitest";
import { formatBytes, formatDuration, formatShare } from "./format.js";

describe("format", () => {
  it("writes bytes in binary units", () => {
    expect(formatBytes(32 * 2 ** 30)).toBe("32 GiB");
    expect(formatBytes(1.25 * 2 ** 20)).toBe("1.3 MiB");
    expect(formatBytes(0)).toBe("0 B");
  });

  it("writes durations a person reads", () => {
    expect(formatDuration(45)).toBe("45 s");
    expect(formatDuration(750)).toBe("12 min 30 s");
    expect(formatDuration(7245)).toBe("2 h 01 min");
    expect(formatDuration(7199)).toBe("2 h");
  });

  it("writes shares as percentages", () => {
    expect(formatShare(0.456)).toBe("46%");
    expect(formatShare(0.004)).toBe("0.4%");
    expect(formatShare(0.0002)).toBe("under 0.1%");
    expect(formatShare(0)).toBe("0%");
  });
});
