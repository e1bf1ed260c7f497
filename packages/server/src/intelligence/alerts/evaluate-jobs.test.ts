import { describe, expect, it } from "vitest";
import { DEFAULT_ALERT_THRESHOLDS as T } from "./alert-thresholds.js";
import { alertKey, evaluateJobs } from "./evaluate-jobs.js";
import { gpu, liveJob, series } from "./rules/series-fixture.js";

describe("evaluateJobs", () => {
  it("fires the rules that hold, clears the ones judged not to, and leaves unjudged ones alone", () => {
    const idleGpus = liveJob(
      series({
        minutes: 40,
        at: (m) => ({ gpus: [gpu(0, 0)], cpu: { usageSeconds: 10 + m * 60, userSeconds: 1 } }),
      }),
      { requestedCores: 4 },
    );
    const { firing, cleared, judgedJobs, unowned } = evaluateJobs([idleGpus], T);
    expect(firing.map((a) => [a.cluster, a.jobId, a.user, a.rule, a.severity])).toEqual([
      ["hpc1", "4242", "alice", "gpus-idle", "warning"],
    ]);
    expect(firing[0].evidence.length).toBeGreaterThan(0);
    // One core of four busy: cores-idle judged and not holding; no memory limit: memory not judged.
    expect([...cleared]).toEqual([alertKey("hpc1", "4242", "cores-idle")]);
    expect([...judgedJobs]).toEqual(["hpc1\u00004242"]);
    expect(unowned).toBe(0);
  });

  it("takes the owner from the samples without a job record, and skips a job no one is known to own", () => {
    const samples = series({ minutes: 40, at: () => ({ gpus: [gpu(0, 0)] }) });
    const noRecord = liveJob(
      samples.map((s) => ({ ...s, user: "bob" })),
      { user: undefined },
    );
    expect(evaluateJobs([noRecord], T).firing.map((a) => a.user)).toEqual(["bob"]);
    const orphan = evaluateJobs([liveJob(samples, { user: undefined })], T);
    expect(orphan).toMatchObject({ firing: [], unowned: 1 });
    expect(orphan.judgedJobs.size).toBe(0);
  });
});
