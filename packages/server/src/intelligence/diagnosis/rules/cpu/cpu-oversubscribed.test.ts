import type { UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { diagnose } from "../../diagnose.js";
import { checkEvidence } from "../../evidence-check.js";
import type { DiagnosisInput } from "../../input.js";
import { GIB, type SampleShape } from "../../scenarios/build-samples.js";
import { steadyJob } from "../../scenarios/steady-job.js";

const NOW = "2026-12-01T00:00:00Z";

/** An 8-core SLURM job sampled every 30 s for an hour, without PSI unless the shape gives it. */
function job(
  shape: (i: number, base: SampleShape) => SampleShape,
  coresUsed = 7.9,
  cores = 8,
): DiagnosisInput {
  const { record, samples } = steadyJob({
    jobId: "9100",
    node: "cn070",
    user: "nina",
    jobName: "solver",
    executable: "solver",
    start: "2026-11-20T10:00:00Z",
    runSeconds: 3600,
    cores,
    coresUsed,
    memoryBytes: 16 * GIB,
    memoryUsed: 8 * GIB,
    shape: (i, _e, base) => shape(i, { ...base, pressure: undefined }),
  });
  return { record, samples, events: [], sourcesSeen: {} };
}

const finding = (input: DiagnosisInput) =>
  diagnose(input, { now: NOW }).findings.find((f) => f.kind === "cpu_oversubscribed");

describe("cpu-oversubscribed", () => {
  it("says how many threads were runnable on how many cores for how much of the run, citing those samples", () => {
    // 40 runnable threads from the 31st sample on (three quarters of the run), 8 before.
    const input = job((i, base) => ({ ...base, threads: 48, runnableThreads: i >= 30 ? 40 : 8 }));
    const f = finding(input)!;
    expect(f.claim).toMatch(
      /on cn070, 40 runnable threads \(median; up to 40 of 48\) on 8 cores for 7\d% of the run \(89 of 119 samples\)/,
    );
    expect(f.claim).toContain("not seen there: cpu.pressure (cgroup v1, or PSI off)");
    const threads = f.evidence.find((e) => e.metric === "cpu.runnableThreads")!;
    expect(threads).toMatchObject({
      source: "proc:/proc/<pid>/task/<tid>/stat",
      field: "state R, counted over the job's threads",
      unit: "{thread}",
      node: "cn070",
    });
    expect(new Set(threads.values)).toEqual(new Set([40]));
    // The evidence spans the over-full stretch only, not the quiet first quarter.
    const firstOver = input.samples.filter((s: UsageSample) => s.cpu?.runnableThreads === 40)[0];
    expect(threads.window?.start).toBe(firstOver.time);
    expect(checkEvidence(diagnose(input, { now: NOW }), input)).toEqual([]);
  });

  it("does not call a thread per core, and now and then one more, oversubscribed", () => {
    const input = job((i, base) => ({ ...base, threads: 12, runnableThreads: 8 + (i % 3 === 0 ? 1 : 0) }));
    const d = diagnose(input, { now: NOW });
    expect(d.findings.map((f) => f.kind)).not.toContain("cpu_oversubscribed");
    expect(d.unseen.filter((u) => u.source === "cpu-contention")).toEqual([]);
  });

  it("counts only a stretch that lasts: runnable threads above the cores in under half the samples are no finding", () => {
    const input = job((i, base) => ({ ...base, runnableThreads: i < 40 ? 30 : 8 }));
    expect(finding(input)).toBeUndefined();
  });

  it("sees threads running on cores the job did not reserve, from CPU time above the reservation", () => {
    const input = job((_i, base) => ({ ...base, cores: 14 }), 14);
    const f = finding(input)!;
    expect(f.claim).toMatch(
      /it used 14 cores on average where 8 were reserved, in 9\d% of the sampled intervals \(taking cores other jobs were given\)/,
    );
    expect(f.evidence.map((e) => e.metric)).toContain("cpu.usageSeconds");
    expect(f.claim).toContain("pin or size its threads to the cores reserved");
    expect(f.claim).not.toContain("queued");
    expect(checkEvidence(diagnose(input, { now: NOW }), input)).toEqual([]);
  });

  it("says oversubscription was not judged where neither thread counts, PSI nor a quota could show it", () => {
    const d = diagnose(
      job((_i, base) => base),
      { now: NOW },
    );
    expect(d.findings.map((f) => f.kind)).not.toContain("cpu_oversubscribed");
    const [u] = d.unseen.filter((x) => x.source === "cpu-contention");
    expect(u.reason).toMatch(
      /^Whether more threads ran than the 8 cores reserved on cn070 was not judged: its samples carry no runnable-thread counts/,
    );
  });

  it("under a quota, names the throttled time and stands in for cpu_throttled when it counted the threads", () => {
    const quota = (runnable: number | undefined) => {
      const input = job(
        (_i, base) => ({
          ...base,
          cores: 2,
          ...(runnable !== undefined ? { runnableThreads: runnable, threads: 20 } : {}),
          pressure: { cpuSome: 60, memorySome: 0, ioSome: 0 },
        }),
        2,
        2,
      );
      // cpu.max 2 cores: the cgroup counts periods and throttles; 40% of periods, 40 ms each.
      let periods = 0;
      const samples = input.samples.map((s: UsageSample, i: number) => {
        periods = (i + 1) * 300;
        return {
          ...s,
          cpu: {
            ...s.cpu!,
            periods,
            throttledPeriods: periods * 0.4,
            throttledSeconds: periods * 0.4 * 0.04,
            limitCores: 2,
          },
        };
      });
      return diagnose({ ...input, samples }, { now: NOW });
    };
    const counted = quota(16);
    expect(counted.findings.map((f) => f.kind)).toEqual(["cpu_oversubscribed"]);
    expect(counted.findings[0].claim).toMatch(
      /16 runnable threads \(median; up to 16 of 20\) on 2 cores .*; throttled \d+ min \d+ s in 40% of \d+ periods/,
    );
    expect(counted.findings[0].evidence.map((e) => e.metric)).toContain("cpu.throttledSeconds");
    // Pressure alone under a quota adds nothing to the throttling finding.
    expect(quota(undefined).findings.map((f) => f.kind)).toEqual(["cpu_throttled"]);
  });
});
