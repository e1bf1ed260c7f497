import { describe, expect, it } from "vitest";
import type { HistoryJob } from "../history-job.js";
import { resourceSpec } from "../resources.js";
import { FeatureBuilder } from "./feature-builder.js";
import { FEATURE_NAMES, groupFeatureIndex } from "./group-features.js";

function job(id: number, memoryGiB: number, outcome: HistoryJob["outcome"] = "completed"): HistoryJob {
  return {
    id: String(id),
    submitTime: id * 10,
    startTime: id * 10,
    endTime: id * 10 + 5,
    user: "alice",
    executable: "sim",
    requested: { cores: 2 },
    used: { memoryBytes: memoryGiB * 2 ** 30 },
    outcome,
  };
}

describe("FeatureBuilder", () => {
  it("keeps killed jobs as lower bounds, apart from the exact values", () => {
    const fb = new FeatureBuilder(resourceSpec("memory"));
    fb.observeEnded(job(1, 2));
    fb.observeEnded(job(2, 3));
    fb.observeEnded(job(3, 40, "oom"));
    const row = fb.features(job(4, 1));
    const at = (name: Parameters<typeof groupFeatureIndex>[1]) => row[groupFeatureIndex("app", name)];
    expect(at("max")).toBeCloseTo(Math.log(3 * 2 ** 30), 4);
    expect(at("censored_max")).toBeCloseTo(Math.log(40 * 2 ** 30), 4);
    expect(Math.round(Math.expm1(at("count")))).toBe(2);
    expect(at("last")).toBeCloseTo(Math.log(3 * 2 ** 30), 4);
    expect(row).toHaveLength(FEATURE_NAMES.length);
  });

  it("has no history (NaN) for a new group", () => {
    const row = new FeatureBuilder(resourceSpec("memory")).features(job(1, 1));
    expect(row[groupFeatureIndex("user", "median")]).toBeNaN();
    expect(row[groupFeatureIndex("user", "count")]).toBe(0);
  });

  it("gives a group's decayed P90: recent values weigh more, the same at every moment asked", () => {
    const halfLife = 50;
    const fb = new FeatureBuilder(resourceSpec("memory"), { halfLifeSeconds: halfLife });
    // Older jobs used more: weighing recent ones more moves the P90 down.
    const gib = (i: number) => 21 - i;
    for (let i = 1; i <= 20; i++) fb.observeEnded(job(i, gib(i)));
    const p90 = groupFeatureIndex("app", "decayed_p90");
    const at = (submitTime: number) => fb.features({ ...job(99, 1), submitTime })[p90];
    // Weighed by hand: 2^(-age / half-life), ages from the newest end; the smallest value at or
    // above 90% of the weight, values in increasing order.
    const ends = Array.from({ length: 20 }, (_, k) => job(k + 1, 1).endTime);
    const weighed = ends
      .map((end, k) => ({
        value: Math.log(gib(k + 1) * 2 ** 30),
        weight: 2 ** (-(ends[19] - end) / halfLife),
      }))
      .sort((a, b) => a.value - b.value);
    const total = weighed.reduce((sum, w) => sum + w.weight, 0);
    let acc = 0;
    const expected = weighed.find((w) => {
      acc += w.weight;
      return acc >= 0.9 * total;
    })?.value as number;
    // The plain P90 of the same values (no decay) is another number: the weights matter.
    const plain = weighed[Math.ceil(0.9 * 20) - 1].value;
    expect(expected).not.toBeCloseTo(plain, 3);
    // Any moment, also one so far ahead that weights counted from it would all underflow.
    for (const t of [300, 1e9, 300, 86_400 * 3, 1e12]) expect(at(t)).toBeCloseTo(expected, 5);
  });
});
