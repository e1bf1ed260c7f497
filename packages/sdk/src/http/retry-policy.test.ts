import { describe, expect, it } from "vitest";
import { backoffDelayMs, isRetryableStatus, parseRetryAfterMs, sleep } from "./retry-policy.js";

const timing = { baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 60_000 };

describe("retry policy", () => {
  it("retries 408, 429 and 5xx but not other statuses or 501/505", () => {
    expect([408, 429, 500, 502, 503, 504, 599].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 409, 422, 501, 505].some(isRetryableStatus)).toBe(false);
  });

  it("doubles the back-off per retry, jittered within its upper half, capped", () => {
    for (const [retry, full] of [
      [1, 100],
      [2, 200],
      [3, 400],
      [5, 1000],
      [9, 1000],
    ]) {
      expect(backoffDelayMs(retry, timing, () => 0)).toBe(full / 2);
      expect(backoffDelayMs(retry, timing, () => 1)).toBe(full);
      const sampled = backoffDelayMs(retry, timing);
      expect(sampled).toBeGreaterThanOrEqual(full / 2);
      expect(sampled).toBeLessThanOrEqual(full);
    }
  });

  it("parses Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("Wed, 02 Dec 2026 10:00:00 GMT");
    expect(parseRetryAfterMs("7", now)).toBe(7000);
    expect(parseRetryAfterMs(" 0 ", now)).toBe(0);
    expect(parseRetryAfterMs("Wed, 02 Dec 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfterMs("Wed, 02 Dec 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfterMs("soon", now)).toBeUndefined();
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
  });

  it("wakes from a sleep when the signal aborts", async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error("stop")), 20);
    await expect(sleep(10_000, controller.signal)).rejects.toThrow("stop");
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
