import { describe, expect, it } from "vitest";
import { canonicalRfc3339, rfc3339ToUnixNano, unixNanoToRfc3339 } from "./unix-nano.js";

describe("RFC 3339 <-> Unix nanoseconds", () => {
  it("keeps nanoseconds that Date.parse would drop", () => {
    expect(rfc3339ToUnixNano("2026-12-02T16:30:00.123456789Z")).toBe(1_796_229_000_123_456_789n);
    expect(unixNanoToRfc3339(1_796_229_000_123_456_789n)).toBe("2026-12-02T16:30:00.123456789Z");
  });

  it("writes milliseconds like toISOString when that is exact", () => {
    for (const iso of ["2026-12-02T16:30:00.000Z", "1970-01-01T00:00:00.001Z", "2026-02-28T23:59:59.999Z"]) {
      expect(unixNanoToRfc3339(rfc3339ToUnixNano(iso)!)).toBe(new Date(iso).toISOString());
    }
  });

  it("applies offsets and refuses what is not a real instant", () => {
    expect(canonicalRfc3339("2026-12-02T17:30:00+01:00")).toBe("2026-12-02T16:30:00.000Z");
    expect(canonicalRfc3339("2026-12-02 16:30:00.5z")).toBe("2026-12-02T16:30:00.500Z");
    for (const bad of [
      "2026-02-30T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-12-02T16:30:60Z",
      "2026-12-02",
      "now",
    ]) {
      expect(rfc3339ToUnixNano(bad)).toBeUndefined();
    }
  });
});
