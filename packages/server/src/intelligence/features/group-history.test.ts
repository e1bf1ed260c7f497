import { describe, expect, it } from "vitest";
import { GroupHistory } from "./group-history.js";

const recent = (g: GroupHistory) => Array.from({ length: g.size }, (_, k) => g.values[g.recentIndex(k)]);

describe("GroupHistory", () => {
  it("keeps every value, newest first, while it grows to its capacity", () => {
    const g = new GroupHistory(32);
    for (let v = 1; v <= 20; v++) g.addExact(v, v + 100, Number.NaN, v * 10);
    expect(g.size).toBe(20);
    expect(recent(g)).toEqual(Array.from({ length: 20 }, (_, k) => 20 - k));
    expect(g.requests[g.recentIndex(0)]).toBe(120);
    expect(g.firstEnd).toBe(10);
    expect(g.lastEnd).toBe(200);
  });

  it("keeps only the last `capacity` values once full, oldest forgotten first", () => {
    const g = new GroupHistory(6);
    for (let v = 1; v <= 15; v++) g.addExact(v, Number.NaN, Number.NaN, v);
    expect(g.count).toBe(15);
    expect(recent(g)).toEqual([15, 14, 13, 12, 11, 10]);
    expect(g.firstEnd).toBe(10);
    expect(g.values.length).toBe(6);
  });

  it("holds no more slots than values until it has to", () => {
    const g = new GroupHistory(32);
    g.addExact(1, 1, 1, 1);
    expect(g.values.length).toBeLessThan(32);
  });
});
