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

  it("gives a group's decayed P90 for the moment asked, however the moments alternate", () => {
    const fb = new FeatureBuilder(resourceSpec("memory"));
    for (let i = 1; i <= 20; i++) fb.observeEnded(job(i, (i * 7) % 11 || 1));
    const p90 = groupFeatureIndex("app", "decayed_p90");
    const at = (submitTime: number) => fb.features({ ...job(99, 1), submitTime })[p90];
    // A builder that never saw another moment is the reference.
    const fresh = (submitTime: number) => {
      const other = new FeatureBuilder(resourceSpec("memory"));
      for (let i = 1; i <= 20; i++) other.observeEnded(job(i, (i * 7) % 11 || 1));
      return other.features({ ...job(99, 1), submitTime })[p90];
    };
    // Far enough ahead, every weight underflows and recency ranks weigh instead: another value.
    for (const t of [300, 300, 1e9, 300, 86_400 * 3, 1e9]) expect(at(t)).toBe(fresh(t));
    expect(at(300)).not.toBe(at(1e9));
  });
});
