import { describe, expect, it } from "vitest";
import type { HistoryJob } from "../../history-job.js";
import { resourceSpec } from "../../resources.js";
import { vpaBaseline } from "./baselines.js";

const DAY = 86_400;

function job(
  i: number,
  t: number,
  gib: number,
  exe = "a",
  outcome: HistoryJob["outcome"] = "completed",
): HistoryJob {
  return {
    id: String(i),
    submitTime: t,
    startTime: t,
    endTime: t + 10,
    user: "u",
    executable: exe,
    requested: {},
    used: { memoryBytes: gib },
    outcome,
  };
}

describe("vpaBaseline", () => {
  it("gives nothing under 3 past jobs, then 1.15 × the decayed P90, recent jobs weighing most", () => {
    const jobs = [
      job(0, 0, 100),
      job(1, 100, 100),
      job(2, 200, 100),
      job(3, 300, 1, "a", "oom"), // killed: a baseline learning from completed jobs ignores it
      job(4, 10 * DAY, 10),
      job(5, 10 * DAY + 100, 10),
      job(6, 10 * DAY + 200, 10),
      job(7, 10 * DAY + 300, 0.5),
    ];
    const v = vpaBaseline(jobs, resourceSpec("memory"));
    expect(v[0]).toBeNaN();
    expect(v[2]).toBeNaN();
    expect(v[3]).toBeCloseTo(115);
    // Ten days later the three old jobs weigh 2^-10 each: the P90 is the new value.
    expect(v[7]).toBeCloseTo(11.5);
  });

  it("falls back from (user, executable) to the user while the pair has fewer than 3 jobs", () => {
    const jobs = [job(0, 0, 5), job(1, 100, 5), job(2, 200, 5), job(3, 300, 50, "b"), job(4, 400, 50, "b")];
    const v = vpaBaseline(jobs, resourceSpec("memory"));
    expect(v[3]).toBeCloseTo(5.75);
    // The user's history now holds one 50 among four: its weighted P90 is 50.
    expect(v[4]).toBeCloseTo(57.5);
  });
});
