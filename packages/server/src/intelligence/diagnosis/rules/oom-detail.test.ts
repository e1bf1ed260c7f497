import { describe, expect, it } from "vitest";
import { diagnose } from "../diagnose.js";
import { checkEvidence } from "../evidence-check.js";
import type { DiagnosisInput } from "../input.js";
import { diagnosisScenarios } from "../scenarios/all-scenarios.js";

const NOW = "2026-12-01T00:00:00Z";
/** A scenario's input, copied so a test may change any part of it. */
const scenario = (name: string): { -readonly [K in keyof DiagnosisInput]: DiagnosisInput[K] } =>
  structuredClone(diagnosisScenarios.find((s) => s.name === name)!.input);
const oomOf = (input: DiagnosisInput) =>
  diagnose(input, { now: NOW }).findings.find((f) => f.kind === "oom_kill")!;

describe("the peak an out-of-memory kill reports", () => {
  it("is the scheduler's MaxRSS when it is above the sampled peak, with both cited", () => {
    // SLURM polled the step at 9,234,567,168 B; the last 30 s sample read 8,912,057,139 B.
    const input = scenario("oom-slurm-polling");
    const oom = oomOf(input);
    expect(oom.claim).toContain(
      "Memory on cn003 peaked at 8.6 GiB against 8 GiB, its request: the scheduler's MaxRSS of step batch (8.6 GiB) is above the highest sampled value (8.3 GiB, the summed resident memory of the job's processes in /proc).",
    );
    expect(oom.evidence).toContainEqual(
      expect.objectContaining({
        source: "sacct",
        field: "MaxRSS",
        metric: "steps.0.maxRssBytes",
        values: [9_234_567_168],
      }),
    );
    expect(oom.evidence).toContainEqual(
      expect.objectContaining({ metric: "memory.peakBytes", node: "cn003", values: [8_912_057_139] }),
    );
    expect(checkEvidence(diagnose(input, { now: NOW }), input)).toEqual([]);
  });

  it("is the job's recorded peak when no step carries a MaxRSS", () => {
    const input = scenario("oom-slurm-polling");
    input.record.steps = undefined;
    const oom = oomOf(input);
    expect(oom.claim).toContain(
      "the scheduler's recorded peak memory (8.6 GiB) is above the highest sampled value",
    );
    expect(oom.evidence).toContainEqual(
      expect.objectContaining({ source: "sacct", field: "MaxRSS", metric: "peaks.memoryBytes" }),
    );
  });

  it("is the cgroup's memory.peak when the scheduler saw less", () => {
    // memory.peak reached the 32 GiB limit; sacct's MaxRSS of the batch step is 31.8 GiB.
    const oom = oomOf(scenario("oom-heap-leak"));
    expect(oom.claim).toContain(
      "Memory on cn041 peaked at 32 GiB against 32 GiB, its cgroup limit (memory.max).",
    );
    expect(oom.claim).not.toContain("is above the highest sampled value");
  });
});
