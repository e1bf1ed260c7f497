import { describe, expect, it } from "vitest";
import { TokenBuckets } from "./token-bucket.js";

describe("TokenBuckets", () => {
  it("allows a burst, then asks to wait until the next token", () => {
    let now = 0;
    const buckets = new TokenBuckets({ ratePerSecond: 2, capacity: 3, now: () => now });
    expect([buckets.take("a"), buckets.take("a"), buckets.take("a")]).toEqual([0, 0, 0]);
    expect(buckets.take("a")).toBeCloseTo(0.5);
    now = 500;
    expect(buckets.take("a")).toBe(0);
    expect(buckets.take("b")).toBe(0);
  });

  it("forgets refilled buckets and stays within its size", () => {
    let now = 0;
    const buckets = new TokenBuckets({ ratePerSecond: 1, capacity: 1, maxBuckets: 10, now: () => now });
    for (let i = 0; i < 25; i++) buckets.take(`k${i}`);
    expect(buckets.size).toBeLessThanOrEqual(10);
    now = 10_000;
    buckets.sweep();
    expect(buckets.size).toBe(0);
  });
});
