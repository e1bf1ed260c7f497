import { describe, expect, it } from "vitest";
import { RateLimitCounts, windowStartOf } from "./rate-limit-counts.js";

// A budget of 3 requests per 1500 ms window: bursts of 3, refilled at 2 requests per second.
const MAX = 3;
const WINDOW = 1500;

function clock(start = 0) {
  const c = { now: start };
  return { c, counts: new RateLimitCounts({ now: () => c.now }) };
}

describe("RateLimitCounts", () => {
  it("admits a burst of max, then asks to wait for one request's worth of budget", () => {
    const { c, counts } = clock();
    const taken = [1, 2, 3].map(() => counts.hit("a", MAX, WINDOW));
    expect(taken.map((d) => d.admitted)).toEqual([true, true, true]);
    expect(taken.map((d) => d.spent)).toEqual([1, 2, 3]);
    expect(taken[2].refillMs).toBe(1500);
    const refused = counts.hit("a", MAX, WINDOW);
    expect(refused).toMatchObject({ admitted: false, spent: 3 });
    expect(refused.retryAfterMs).toBeCloseTo(500);
    // A refused request costs nothing: the wait does not grow.
    expect(counts.hit("a", MAX, WINDOW).retryAfterMs).toBeCloseTo(500);
    c.now = 500;
    expect(counts.hit("a", MAX, WINDOW).admitted).toBe(true);
    expect(counts.hit("b", MAX, WINDOW).admitted).toBe(true);
  });

  it("answers peek without spending", () => {
    const { counts } = clock();
    expect(counts.peek("a", MAX, WINDOW)).toMatchObject({ admitted: true, spent: 0 });
    for (let i = 0; i < MAX; i++) counts.hit("a", MAX, WINDOW);
    expect(counts.peek("a", MAX, WINDOW)).toMatchObject({ admitted: false, spent: 3 });
    expect(counts.peek("a", MAX, WINDOW)).toMatchObject({ admitted: false, spent: 3 });
  });

  it("puts windows on the epoch's grid, so every replica counts in the same ones", () => {
    expect(windowStartOf(0, 1500)).toBe(0);
    expect(windowStartOf(1499, 1500)).toBe(0);
    expect(windowStartOf(1500, 1500)).toBe(1500);
    expect(windowStartOf(1_780_000_000_123, 4000)).toBe(1_780_000_000_000);
  });

  it("keeps this process's hits per window until they are stored; a failed sync keeps them for the next", () => {
    const { c, counts } = clock(1000);
    counts.hit("a", MAX, WINDOW);
    c.now = 1600; // the next window
    counts.hit("a", MAX, WINDOW);
    counts.hit("a", MAX, WINDOW);
    expect(counts.takeUnsent()).toEqual([
      { key: "a", windowStart: 0, hits: 1, expiresAt: 3000 },
      { key: "a", windowStart: 1500, hits: 2, expiresAt: 4500 },
    ]);
    counts.sendFailed();
    c.now = 1700;
    counts.hit("b", MAX, WINDOW);
    expect(counts.takeUnsent()).toEqual([
      { key: "a", windowStart: 0, hits: 1, expiresAt: 3000 },
      { key: "a", windowStart: 1500, hits: 2, expiresAt: 4500 },
      { key: "b", windowStart: 1500, hits: 1, expiresAt: 4500 },
    ]);
    counts.applyTotals([]);
    expect(counts.takeUnsent()).toEqual([]);
  });

  it("spends the hits the other replicas admitted, once, from the totals of each window", () => {
    const { c, counts } = clock(100);
    const max = 10;
    const window = 10_000; // refills 1 per second
    counts.hit("a", max, window);
    counts.hit("a", max, window);
    counts.takeUnsent();
    // PostgreSQL holds 2 of ours and 4 of another replica's.
    counts.applyTotals([{ key: "a", windowStart: 0, hits: 6 }]);
    expect(counts.peek("a", max, window).spent).toBe(6);
    // Read again with nothing new: nothing more is spent.
    counts.applyTotals([{ key: "a", windowStart: 0, hits: 6 }]);
    expect(counts.peek("a", max, window).spent).toBe(6);
    // One more of ours stored, three more of theirs.
    counts.hit("a", max, window);
    counts.takeUnsent();
    counts.applyTotals([{ key: "a", windowStart: 0, hits: 10 }]);
    expect(counts.peek("a", max, window).spent).toBe(10);
    expect(counts.hit("a", max, window).admitted).toBe(false);
    // Refilled at 1 per second.
    c.now += 2000;
    expect(counts.peek("a", max, window).spent).toBeCloseTo(8);
    // Totals of keys this process does not hold are not its business.
    counts.applyTotals([{ key: "z", windowStart: 0, hits: 50 }]);
    expect(counts.keys()).toEqual(["a"]);
  });

  it("spends hits of a window that is over less what has refilled since its end", () => {
    const { c, counts } = clock(10_500);
    const max = 10;
    const window = 10_000;
    counts.hit("a", max, window);
    counts.takeUnsent();
    c.now = 12_000;
    // Ours has refilled by now. 6 hits of another replica in the window [0, 10000), over 2 s
    // ago: 2 of them have refilled since, at least.
    counts.applyTotals([{ key: "a", windowStart: 0, hits: 6 }]);
    expect(counts.peek("a", max, window).spent).toBeCloseTo(4);
  });

  it("never spends above max, nor below zero", () => {
    const { c, counts } = clock();
    counts.hit("a", MAX, WINDOW);
    counts.takeUnsent();
    counts.applyTotals([{ key: "a", windowStart: 0, hits: 40 }]);
    const refused = counts.hit("a", MAX, WINDOW);
    expect(refused.spent).toBe(MAX);
    expect(refused.retryAfterMs).toBeCloseTo(500);
    c.now = 60_000;
    expect(counts.peek("a", MAX, WINDOW).spent).toBe(0);
  });

  it("sees nothing new in totals below what it saw (PostgreSQL emptied the unlogged table)", () => {
    const { counts } = clock();
    counts.hit("a", MAX, WINDOW);
    counts.takeUnsent();
    counts.applyTotals([{ key: "a", windowStart: 0, hits: 2 }]);
    expect(counts.peek("a", MAX, WINDOW).spent).toBe(2);
    counts.applyTotals([{ key: "a", windowStart: 0, hits: 0 }]);
    expect(counts.peek("a", MAX, WINDOW).spent).toBe(2);
  });

  it("forgets windows past and keys whose budget is whole, and stays within maxKeys", () => {
    const c = { now: 0 };
    const counts = new RateLimitCounts({ now: () => c.now, maxKeys: 10 });
    for (let i = 0; i < 25; i++) counts.hit(`k${i}`, 1, 1000);
    expect(counts.size).toBeLessThanOrEqual(10);
    counts.takeUnsent();
    counts.applyTotals([]);
    c.now = 1500; // budgets whole, windows still read until 2000
    counts.sweep();
    expect(counts.size).toBeGreaterThan(0);
    c.now = 2000;
    counts.sweep();
    expect(counts.size).toBe(0);
  });

  it("drops hits never stored once their window cannot matter any more", () => {
    const { c, counts } = clock();
    counts.hit("a", MAX, WINDOW);
    c.now = 3000;
    counts.sweep();
    expect(counts.takeUnsent()).toEqual([]);
    expect(counts.size).toBe(0);
  });
});
