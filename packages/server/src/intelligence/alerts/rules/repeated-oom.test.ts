import { compileValidator, EvidenceRefSchema } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import type { OomKilledJob } from "../../../data-plane/queries/oom-history.js";
import { DEFAULT_ALERT_THRESHOLDS as T } from "../alert-thresholds.js";
import { sameShape } from "./job-shape.js";
import { repeatedOom } from "./repeated-oom.js";
import { liveJob, series, T0 } from "./series-fixture.js";

const GiB = 2 ** 30;
const hoursAgo = (h: number) => new Date(T0 + 30 * 60_000 - h * 3_600_000).toISOString();

function kill(jobId: string, endedHoursAgo: number, extra: Partial<OomKilledJob> = {}): OomKilledJob {
  return {
    cluster: "hpc1",
    jobId,
    user: "alice",
    endedAt: hoursAgo(endedHoursAgo),
    state: "OUT_OF_MEMORY",
    requestedMemoryBytes: 16 * GiB,
    requestedCores: 4,
    peakMemoryBytes: 16 * GiB + 1,
    jobName: "assemble",
    ...extra,
  };
}

const shape = { requestedMemoryBytes: 16 * GiB, requestedCores: 4, jobName: "assemble" };
const job = liveJob(series({ minutes: 30, at: () => ({ memory: { currentBytes: GiB } }) }), shape);

describe("repeated-oom", () => {
  it("fires on a running job of the shape the user's last jobs were killed for memory in, citing each kill", () => {
    const oomKills = [kill("101", 2), kill("102", 20), kill("103", 100, { state: "FAILED", signal: 9 })];
    const verdict = repeatedOom.evaluate(job, T, { oomKills });
    expect(verdict).toMatchObject({ holds: true, severity: "critical" });
    if (verdict.holds !== true) throw new Error("expected to fire");
    expect(verdict.message).toBe(
      "3 of alice's jobs assemble of this shape with 16.0 GiB were killed for memory in the last 168 h, and this one asks for the same: raise its memory or cut its use.",
    );
    expect(verdict.evidence.map((e) => [e.kind, e.metric, e.textValue])).toEqual([
      ["scheduler", "outcome.state", "OUT_OF_MEMORY"],
      ["scheduler", "outcome.state", "OUT_OF_MEMORY"],
      ["scheduler", "outcome.state", "FAILED"],
    ]);
    expect(verdict.evidence[2].text).toBe(
      `Job 103 on hpc1 ended ${hoursAgo(100)} FAILED by signal 9 over its memory at a peak of 16.0 GiB of the 16.0 GiB requested`,
    );
    expect(verdict.evidence[0].values).toEqual([16 * GiB + 1, 16 * GiB]);
    const valid = compileValidator(EvidenceRefSchema);
    for (const e of verdict.evidence) expect(valid.validate(e).ok, JSON.stringify(e)).toBe(true);
  });

  it("counts only kills of the same shape, within the window, other than the job itself", () => {
    const oomKills = [
      kill("101", 2),
      kill("102", 20),
      kill("4242", 1),
      kill("104", 200),
      kill("105", 3, { requestedMemoryBytes: 32 * GiB }),
      kill("106", 3, { jobName: "align" }),
    ];
    expect(repeatedOom.evaluate(job, T, { oomKills })).toEqual({ holds: false });
    expect(repeatedOom.evaluate(job, { ...T, repeatedOomCount: 2 }, { oomKills }).holds).toBe(true);
    expect(repeatedOom.evaluate(job, { ...T, repeatedOomWindowHours: 300 }, { oomKills }).holds).toBe(true);
  });

  it("is not judged for a job whose record gives no shape", () => {
    const bare = liveJob(series({ minutes: 30, at: () => ({}) }));
    expect(
      repeatedOom.evaluate(bare, T, { oomKills: [kill("1", 1), kill("2", 1), kill("3", 1)] }).holds,
    ).toBe("unknown");
  });

  it("compares the script hash before the job name, and unset requests only with unset ones", () => {
    expect(sameShape({ ...shape, scriptHash: "a" }, { ...shape, jobName: "other", scriptHash: "a" })).toBe(
      true,
    );
    expect(sameShape({ ...shape, scriptHash: "a" }, { ...shape, scriptHash: "b" })).toBe(false);
    expect(sameShape({ requestedMemoryBytes: GiB }, { requestedMemoryBytes: GiB, requestedCores: 2 })).toBe(
      false,
    );
    expect(sameShape({ requestedMemoryBytes: GiB }, { requestedMemoryBytes: GiB, requestedGpus: 0 })).toBe(
      true,
    );
    expect(sameShape({}, {})).toBe(false);
  });
});
