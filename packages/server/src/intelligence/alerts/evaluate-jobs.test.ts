import { compileValidator, UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { DEFAULT_ALERT_THRESHOLDS as T } from "./alert-thresholds.js";
import { alertKey, evaluateJobs } from "./evaluate-jobs.js";
import { gpu, liveJob, series, T0 } from "./rules/series-fixture.js";
import { walltimeOverrun } from "./rules/walltime-overrun.js";

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
    // One core of four busy: cores-idle judged and not holding; no past memory kills: repeated-oom
    // neither; no memory limit, no progress: memory-near-limit and walltime-overrun not judged.
    expect([...cleared].sort()).toEqual(
      [alertKey("hpc1", "4242", "cores-idle"), alertKey("hpc1", "4242", "repeated-oom")].sort(),
    );
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

  it("judges repeated-oom by the owner's own past kills only", () => {
    const shape = { requestedCores: 2, requestedMemoryBytes: 2 ** 33, jobName: "assemble" };
    const job = liveJob(series({ minutes: 5, at: () => ({ memory: { currentBytes: 1 } }) }), shape);
    const kill = (user: string, jobId: string) => ({
      cluster: "hpc1",
      jobId,
      user,
      endedAt: "2026-12-02T09:00:00.000Z",
      state: "OUT_OF_MEMORY",
      ...shape,
    });
    const bobs = [kill("bob", "1"), kill("bob", "2"), kill("bob", "3")];
    expect(evaluateJobs([job], T, undefined, bobs).firing).toEqual([]);
    const alices = [kill("alice", "1"), kill("alice", "2"), kill("alice", "3")];
    expect(evaluateJobs([job], T, undefined, [...bobs, ...alices]).firing.map((a) => a.rule)).toEqual([
      "repeated-oom",
    ]);
  });

  it("fires walltime-overrun from the progress the collector sends, and nothing for a job without it", () => {
    // As the collector's progress reader sends them: 10 steps a minute of 3000, walltime 2 h.
    const samples = series({
      minutes: 40,
      at: (m) => ({
        progress: { done: m * 10, total: 3000, unit: "step" },
        memory: { currentBytes: 2 ** 30 },
      }),
    });
    const valid = compileValidator(UsageSample);
    for (const s of samples) expect(valid.validate(s).ok).toBe(true);
    const limits = { startedAt: new Date(T0).toISOString(), walltimeSeconds: 7200 };
    const training = evaluateJobs([liveJob(samples, limits)], T, [walltimeOverrun]);
    expect(training.firing).toMatchObject([
      {
        rule: "walltime-overrun",
        severity: "critical",
        projectedAt: new Date(T0 + 300 * 60_000).toISOString(),
      },
    ]);
    expect(training.firing[0].evidence.map((e) => e.metric)).toEqual([
      "progress.done",
      "spec.requested.walltimeSeconds",
    ]);

    const unmeasured = liveJob(
      samples.map(({ progress: _, ...s }) => s),
      limits,
    );
    const silent = evaluateJobs([unmeasured], T, [walltimeOverrun]);
    expect(silent.firing).toEqual([]);
    expect(silent.cleared.size).toBe(0);
    expect(walltimeOverrun.evaluate(unmeasured, T)).toEqual({
      holds: "unknown",
      reason: "progress was not measurable: the job reports no progress",
    });
  });
});
