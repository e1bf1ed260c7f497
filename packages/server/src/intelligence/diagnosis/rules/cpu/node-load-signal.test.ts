import { describe, expect, it } from "vitest";
import { diagnose } from "../../diagnose.js";
import { checkEvidence } from "../../evidence-check.js";
import type { DiagnosisInput } from "../../input.js";
import { GIB, type SampleShape } from "../../scenarios/build-samples.js";
import { steadyJob } from "../../scenarios/steady-job.js";

const NOW = "2026-12-01T00:00:00Z";

/** An 8-core job sampled every 30 s for an hour, without PSI or thread counts unless the shape gives them. */
function job(shape: (i: number, base: SampleShape) => SampleShape): DiagnosisInput {
  const { record, samples } = steadyJob({
    jobId: "9200",
    node: "cn071",
    user: "nina",
    jobName: "solver",
    executable: "solver",
    start: "2026-11-20T10:00:00Z",
    runSeconds: 3600,
    cores: 8,
    coresUsed: 7.9,
    memoryBytes: 16 * GIB,
    memoryUsed: 8 * GIB,
    shape: (i, _e, base) => shape(i, { ...base, pressure: undefined }),
  });
  return { record, samples, events: [], sourcesSeen: {} };
}

const run = (input: DiagnosisInput) => diagnose(input, { now: NOW });
const oversubscribed = (input: DiagnosisInput) =>
  run(input).findings.find((f) => f.kind === "cpu_oversubscribed");

describe("cpu-oversubscribed from the node's load (a job alone on its node)", () => {
  it("fires from the node's runnable tasks, cites the samples, and says the load is all it saw", () => {
    // 20 runnable tasks on 8 cores from the 21st sample on; 8 before.
    const input = job((i, base) => ({
      ...base,
      nodeRunnable: i >= 20 ? 20 : 8,
      nodeLoad1: i >= 20 ? 19.5 : 8,
    }));
    const f = oversubscribed(input)!;
    expect(f.claim).toMatch(
      /on cn071, 20 tasks running or waiting for a core on the node \(median; up to 20, 1-minute load 19\.5; \/proc\/loadavg, the job alone on the node\) on 8 cores for 8\d% of the run \(99 of 119 samples\); seen only through the node's load, which counts every task on the node/,
    );
    expect(f.confidence).toBe(0.7);
    const runnable = f.evidence.find((e) => e.metric === "cpu.nodeRunnable")!;
    expect(runnable).toMatchObject({ source: "proc:/proc/loadavg", unit: "{thread}", node: "cn071" });
    expect(new Set(runnable.values)).toEqual(new Set([20]));
    expect(f.evidence.find((e) => e.metric === "cpu.nodeLoad1")).toMatchObject({
      source: "proc:/proc/loadavg",
    });
    expect(checkEvidence(run(input), input)).toEqual([]);
  });

  it("falls back to the 1-minute load average, saying it counts tasks waiting on I/O too", () => {
    const input = job((_i, base) => ({ ...base, nodeLoad1: 13.2 }));
    const f = oversubscribed(input)!;
    expect(f.claim).toContain("a 1-minute load average of 13.2 on the node (median; up to 13.2;");
    expect(f.claim).toContain("tasks waiting on I/O included");
    expect(f.confidence).toBe(0.6);
    expect(f.evidence.map((e) => e.metric)).toEqual(["allocated.cores", "cpu.nodeLoad1"]);
    expect(checkEvidence(run(input), input)).toEqual([]);
  });

  it("judges from the runnable count, not the load average, when it has both", () => {
    // A load of 20 from tasks stuck on I/O (state D), with only 9 running: no CPU queue.
    const input = job((_i, base) => ({ ...base, nodeRunnable: 9, nodeLoad1: 20 }));
    const d = run(input);
    expect(d.findings.map((f) => f.kind)).not.toContain("cpu_oversubscribed");
    // The load was a lens: the node was judged, so nothing is unseen.
    expect(d.unseen.filter((u) => u.source === "cpu-contention")).toEqual([]);
  });

  it("does not call a load up to half again the cores oversubscribed", () => {
    expect(
      oversubscribed(job((i, base) => ({ ...base, nodeRunnable: 10 + (i % 2), nodeLoad1: 10.4 }))),
    ).toBeUndefined();
  });

  it("neither uses nor claims the load where the job shared its node most of the run", () => {
    // Alone for the first 20 samples only: then another job came and the collector sent no load.
    const input = job((i, base) => ({ ...base, ...(i < 20 ? { nodeRunnable: 40, nodeLoad1: 40 } : {}) }));
    const d = run(input);
    expect(d.findings.map((f) => f.kind)).not.toContain("cpu_oversubscribed");
    expect(d.findings.flatMap((f) => f.evidence.map((e) => e.metric))).not.toContain("cpu.nodeRunnable");
    const [u] = d.unseen.filter((x) => x.source === "cpu-contention");
    expect(u.reason).toContain("no node load (/proc/loadavg, sent only for a job alone on its node)");
  });

  it("cites the load beside counted threads without calling it the only evidence", () => {
    const input = job((_i, base) => ({
      ...base,
      threads: 40,
      runnableThreads: 30,
      nodeRunnable: 31,
      nodeLoad1: 30.2,
    }));
    const f = oversubscribed(input)!;
    expect(f.claim).toMatch(/30 runnable threads \(median; up to 30 of 40\).*; 31 tasks running or waiting/);
    expect(f.claim).not.toContain("seen only through the node's load");
    expect(f.confidence).toBe(0.85);
    expect(f.evidence.map((e) => e.metric)).toEqual(
      expect.arrayContaining(["cpu.runnableThreads", "cpu.nodeRunnable", "cpu.nodeLoad1"]),
    );
  });

  it("stands in for cpu_throttled under a quota when the node's tasks were counted", () => {
    const input = job((_i, base) => ({ ...base, cores: 2, nodeRunnable: 16 }));
    let periods = 0;
    const samples = input.samples.map((s, i) => {
      periods = (i + 1) * 300;
      const cpu = {
        ...s.cpu!,
        periods,
        throttledPeriods: periods * 0.4,
        throttledSeconds: periods * 0.016,
        limitCores: 2,
      };
      return { ...s, cpu };
    });
    const d = run({ ...input, samples });
    const kinds = d.findings.map((f) => f.kind);
    expect(kinds).toContain("cpu_oversubscribed");
    expect(kinds).not.toContain("cpu_throttled");
    expect(d.findings.find((f) => f.kind === "cpu_oversubscribed")!.claim).toMatch(
      /16 tasks running or waiting for a core on the node .* on 2 cores .*; throttled/,
    );
  });
});
