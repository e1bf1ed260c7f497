import type { UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { diagnose } from "./diagnose.js";
import { checkEvidence } from "./evidence-check.js";
import type { DiagnosisInput } from "./input.js";
import { diagnosisScenarios } from "./scenarios/all-scenarios.js";
import { a100, GIB } from "./scenarios/build-samples.js";
import { steadyJob } from "./scenarios/steady-job.js";

const NOW = "2026-12-01T00:00:00Z";
/** A scenario's input, copied so a test may change any part of it. */
const scenario = (name: string): { -readonly [K in keyof DiagnosisInput]: DiagnosisInput[K] } =>
  structuredClone(diagnosisScenarios.find((s) => s.name === name)!.input);

/** A job on 32 cores that runs nothing for `runSeconds`, sampled every ten seconds. */
function idleJob(runSeconds: number): DiagnosisInput {
  const { record, samples } = steadyJob({
    jobId: "9100",
    node: "cn200",
    user: "mia",
    jobName: "launch-check",
    start: "2026-11-20T10:00:00Z",
    runSeconds,
    intervalSeconds: 10,
    cores: 32,
    coresUsed: 0,
    memoryBytes: 4 * GIB,
    memoryUsed: 2 * GIB,
  });
  return { record, samples, events: [], sourcesSeen: {} };
}

describe("usage judged from samples that cover the run, however short", () => {
  it.each([60, 90, 120])("finds the idle cores of a %i s job whose samples cover it", (seconds) => {
    const input = idleJob(seconds);
    const d = diagnose(input, { now: NOW });
    expect(d.findings.map((f) => f.kind)).toEqual(["cpu_low_efficiency"]);
    expect(d.findings[0].claim).toContain("reserved 32 cores per node and left them all idle");
    expect(d.unseen).toEqual([]);
    expect(checkEvidence(d, input)).toEqual([]);
  });

  it("says why the CPU use of a 20 s job was not judged, and claims nothing about it", () => {
    const d = diagnose(idleJob(20), { now: NOW });
    expect(d.findings).toEqual([]);
    expect(d.unseen).toEqual([
      {
        source: "usage-samples",
        reason:
          "CPU use on cn200 was not judged: the job ran 20 s and its 2 samples cover 14 s (70% of the run); it is judged from at least 3 samples covering 30 s and 60% of the run, so how busy the job kept its cores there is not known.",
        window: { start: "2026-11-20T10:00:00Z", end: "2026-11-20T10:00:20Z" },
      },
    ]);
  });

  it("does not judge a long job's CPU use from samples that cover a small part of it", () => {
    const input = scenario("cpu-low-efficiency");
    const first = Date.parse(input.samples[0].time);
    // Samples of the first half hour of a three-hour run only (the collector then stopped).
    input.samples = input.samples.filter((s) => Date.parse(s.time) - first < 1800_000);
    const d = diagnose(input, { now: NOW });
    expect(d.findings).toEqual([]);
    expect(d.unseen.map((u) => u.reason)).toContainEqual(
      expect.stringMatching(/^CPU use on cn050 was not judged/),
    );
  });

  it("does not call GPUs idle for a run their readings do not cover", () => {
    const input = scenario("gpus-unused");
    const first = Date.parse(input.samples[0].time);
    // nvidia-smi stopped answering after 20 minutes of a 100-minute run; cgroup samples went on.
    input.samples = input.samples.map((s): UsageSample => {
      if (Date.parse(s.time) - first < 1200_000) return s;
      const { gpus: _gone, ...rest } = s;
      return rest;
    });
    const d = diagnose(input, { now: NOW });
    expect(d.findings.map((f) => f.kind)).not.toContain("gpus_unused");
    expect(d.unseen).toContainEqual(
      expect.objectContaining({
        source: "gpu-metrics",
        reason: expect.stringMatching(
          /^The use of GPUs 0, 1 on gpu09 was not judged: the job ran 1 h 40 min and its 40 samples cover 19 min 30 s \(20% of the run\)/,
        ),
      }),
    );
  });

  it("claims idle GPUs for the whole job only when no stretch of it went unwatched", () => {
    const input = scenario("gpus-unused");
    const times = input.samples.map((s) => Date.parse(s.time));
    // Twenty minutes in the middle with no sample at all: what the GPUs did then is unknown.
    input.samples = input.samples.filter(
      (_s, i) => times[i] - times[0] < 2400_000 || times[i] - times[0] > 3600_000,
    );
    const d = diagnose(input, { now: NOW });
    const claim = d.findings.find((f) => f.kind === "gpus_unused")?.claim ?? "";
    expect(claim).toMatch(/did no work for the 1 h 19 min of the run their readings cover/);
    expect(claim).not.toContain("whole job");
  });

  it("does not say a hung job's GPUs were idle when no GPU reading covers its last stretch", () => {
    const input = scenario("timeout-hung");
    const gpu = a100(0, "3b");
    input.record.spec.requested.gpus = 1;
    const reading = { index: 0, pciBusId: gpu.pciBusId, utilizationPercent: 0, memoryUsedBytes: 0 };
    // GPU readings for the first hour only: the idle tail itself has none.
    const first = Date.parse(input.samples[0].time);
    input.samples = input.samples.map((s) =>
      Date.parse(s.time) - first < 3600_000 ? { ...s, gpus: [reading] } : s,
    );
    const timeout = diagnose(input, { now: NOW }).findings.find((f) => f.kind === "timeout");
    expect(timeout?.claim).toContain("the job used almost no CPU");
    expect(timeout?.claim).not.toContain("GPUs were idle");
  });
});
