import { describe, expect, it } from "vitest";
import type { HistoryJob, JobOutcomeKind } from "../history-job.js";
import { RecentMemoryKills } from "./recent-memory-kills.js";

const GiB = 2 ** 30;

function job(id: string, end: number, outcome: JobOutcomeKind, used?: number, asked = 2 * GiB): HistoryJob {
  return {
    id,
    submitTime: end - 100,
    startTime: end - 90,
    endTime: end,
    user: "c/alice",
    executable: "c/train.py",
    requested: { memoryBytes: asked },
    used: used === undefined ? {} : { memoryBytes: used },
    outcome,
  };
}

describe("RecentMemoryKills", () => {
  it("remembers the last kill of an application with the larger of its limit and its peak", () => {
    const kills = new RecentMemoryKills();
    kills.observeEnded(job("a", 1_000, "oom", 1.5 * GiB), "app");
    expect(kills.recent("app", 1_100)).toEqual({ jobId: "a", end: 1_000, lowerBoundBytes: 2 * GiB });
    kills.observeEnded(job("b", 2_000, "oom", 3 * GiB), "app");
    expect(kills.recent("app", 2_100)?.lowerBoundBytes).toBe(3 * GiB);
    expect(kills.recent("other", 2_100)).toBeUndefined();
    expect(kills.recent(undefined, 2_100)).toBeUndefined();
  });

  it("forgets a kill once a run of the application completes, and when it is no longer recent", () => {
    const kills = new RecentMemoryKills({ windowSeconds: 3_600 });
    kills.observeEnded(job("a", 1_000, "oom", 3 * GiB), "app");
    expect(kills.recent("app", 1_000 + 3_600)).toBeDefined();
    expect(kills.recent("app", 1_000 + 3_601)).toBeUndefined();
    // A failure or a timeout says nothing new of the memory: the kill stands.
    kills.observeEnded(job("f", 1_500, "failed", GiB), "app");
    kills.observeEnded(job("t", 1_600, "timeout", GiB), "app");
    expect(kills.recent("app", 1_700)?.jobId).toBe("a");
    kills.observeEnded(job("c", 2_000, "completed", 4 * GiB, 6 * GiB), "app");
    expect(kills.recent("app", 2_100)).toBeUndefined();
  });

  it("learns the confidence of the step from the site's own retries (½ before any)", () => {
    const kills = new RecentMemoryKills({ factor: 1.5 });
    expect(kills.confidence).toBe(0.5);
    // Three retries fit under 1.5 × 2 GiB = 3 GiB, one needed 5 GiB.
    const retries = [2.5, 3, 2.1, 5];
    retries.forEach((used, i) => {
      const t = 10_000 * (i + 1);
      kills.observeEnded(job(`k${i}`, t, "oom", GiB), `app${i}`);
      kills.observeEnded(job(`r${i}`, t + 500, "completed", used * GiB, 8 * GiB), `app${i}`);
    });
    expect(kills.followUps).toBe(4);
    expect(kills.confidence).toBeCloseTo((3 + 1) / (4 + 2), 12);
    // A completed run of an application with no kill, or a retry months later, teaches nothing.
    kills.observeEnded(job("x", 50_000, "completed", GiB), "fresh");
    kills.observeEnded(job("late-kill", 60_000, "oom", GiB), "late");
    kills.observeEnded(job("late-retry", 60_000 + 30 * 86_400, "completed", GiB), "late");
    expect(kills.followUps).toBe(4);
  });

  it("ignores jobs of no application and refuses a step that would not raise anything", () => {
    const kills = new RecentMemoryKills();
    kills.observeEnded(job("a", 1_000, "oom", 3 * GiB), undefined);
    expect(kills.recent(undefined, 1_000)).toBeUndefined();
    expect(() => new RecentMemoryKills({ factor: 1 })).toThrow(/factor: must be greater than 1/);
    expect(() => new RecentMemoryKills({ windowSeconds: 0 })).toThrow(/windowSeconds: must be positive/);
  });
});
