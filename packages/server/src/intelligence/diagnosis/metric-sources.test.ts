import type { Diagnosis, EvidenceRef, UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { diagnose } from "./diagnose.js";
import { checkEvidence } from "./evidence-check.js";
import type { DiagnosisInput } from "./input.js";
import { readFrom, sampleOrigin } from "./metric-sources.js";
import { diagnosisScenarios } from "./scenarios/all-scenarios.js";

const NOW = "2026-12-01T00:00:00Z";
/** A scenario's input, copied so a test may change any part of it. */
const scenario = (name: string): { -readonly [K in keyof DiagnosisInput]: DiagnosisInput[K] } =>
  structuredClone(diagnosisScenarios.find((s) => s.name === name)!.input);
const evidenceOf = (d: Diagnosis) => d.findings.flatMap((f) => f.evidence);

/** A sample as the cgroup v1 reader fills it: no `memory.events oom`, no pressure. */
function asCgroupV1(s: UsageSample): UsageSample {
  const { pressure: _psi, ...rest } = s;
  if (!rest.memory) return rest;
  const { oomEvents: _oom, ...memory } = rest.memory;
  return { ...rest, memory };
}

describe("where evidence says a value was read", () => {
  it("labels values from /proc as /proc, never as a cgroup file", () => {
    const input = scenario("oom-slurm-polling");
    const d = diagnose(input, { now: NOW });
    const metrics = evidenceOf(d).filter((e) => e.kind === "metric" || e.kind === "process");
    expect(metrics.length).toBeGreaterThan(0);
    expect(metrics.filter((e) => e.source.startsWith("cgroup:"))).toEqual([]);
    expect(metrics).toContainEqual(
      expect.objectContaining({
        source: "proc:/proc/<pid>/stat",
        field: "rss, summed over the job's processes",
        metric: "memory.currentBytes",
      }),
    );
    expect(metrics).toContainEqual(
      expect.objectContaining({
        kind: "process",
        source: "proc:/proc/<pid>/status",
        field: "VmRSS",
        metric: "processes.20311.rssBytes",
      }),
    );
    expect(checkEvidence(d, input)).toEqual([]);
  });

  it("names the cgroup file and its field, v2 or v1 as the sample was read", () => {
    const v2 = scenario("oom-heap-leak");
    const v1 = { ...v2, samples: v2.samples.map(asCgroupV1) };
    const pick = (d: Diagnosis, metric: string) => evidenceOf(d).find((e) => e.metric === metric);
    const d2 = diagnose(v2, { now: NOW });
    const d1 = diagnose(v1, { now: NOW });
    expect(pick(d2, "memory.anonBytes")).toMatchObject({ source: "cgroup:memory.stat", field: "anon" });
    expect(pick(d1, "memory.anonBytes")).toMatchObject({ source: "cgroup:memory.stat", field: "total_rss" });
    expect(pick(d2, "memory.peakBytes")).toMatchObject({ source: "cgroup:memory.peak" });
    expect(pick(d1, "memory.peakBytes")).toMatchObject({ source: "cgroup:memory.max_usage_in_bytes" });
    expect(pick(d2, "memory.oomKillEvents")).toMatchObject({
      source: "cgroup:memory.events",
      field: "oom_kill",
    });
    expect(pick(d1, "memory.oomKillEvents")).toMatchObject({ source: "cgroup:memory.oom_control" });
    expect(checkEvidence(d1, v1)).toEqual([]);
  });

  it("names the scheduler's own field and the stored value", () => {
    const d = diagnose(scenario("oom-heap-leak"), { now: NOW });
    expect(evidenceOf(d)).toContainEqual(
      expect.objectContaining({
        kind: "scheduler",
        source: "sacct",
        field: "State",
        metric: "outcome.state",
        textValue: "OUT_OF_MEMORY",
      }),
    );
    expect(evidenceOf(d)).toContainEqual(
      expect.objectContaining({
        source: "sacct",
        field: "MaxRSS",
        metric: "steps.0.maxRssBytes",
        values: [34_140_000_000],
      }),
    );
  });

  it("rejects evidence whose label is not where its samples read the value", () => {
    const input = scenario("oom-slurm-polling");
    const d = diagnose(input, { now: NOW });
    const sample = input.samples[5];
    const cited: EvidenceRef = {
      kind: "metric",
      source: "proc:/proc/<pid>/stat",
      field: "rss, summed over the job's processes",
      metric: "memory.currentBytes",
      node: "cn003",
      window: { start: sample.time, end: sample.time },
      values: [sample.memory!.currentBytes],
      text: "memory",
    };
    const check = (e: EvidenceRef) =>
      checkEvidence({ ...d, findings: [{ ...d.findings[0], evidence: [e] }] }, input);
    expect(check(cited)).toEqual([]);
    expect(check({ ...cited, source: "cgroup:memory.current", field: undefined })).toEqual([
      expect.objectContaining({
        message:
          "oom_kill: memory.currentBytes on cn003 was read from proc:/proc/<pid>/stat (rss, summed over the job's processes), not cgroup:memory.current",
      }),
    ]);
    const process = evidenceOf(d).find((e) => e.kind === "process")!;
    expect(check({ ...process, source: "cgroup:memory.stat", field: "anon" })).toHaveLength(1);
  });

  it("tells the readers apart by the fields they fill", () => {
    const base = { cluster: "hpc1", jobId: "1", node: "n1", time: "2026-11-01T00:00:00Z" };
    expect(
      sampleOrigin({ ...base, memory: { currentBytes: 1, peakBytes: 2 }, cpu: { usageSeconds: 1 }, pids: 3 }),
    ).toBe("proc");
    expect(sampleOrigin({ ...base, memory: { currentBytes: 1, anonBytes: 1, oomKillEvents: 0 } })).toBe(
      "cgroup-v1",
    );
    expect(
      sampleOrigin({ ...base, memory: { currentBytes: 1, anonBytes: 1, oomEvents: 0, oomKillEvents: 0 } }),
    ).toBe("cgroup-v2");
    expect(readFrom("gpus.3.utilizationPercent")).toEqual({ source: "nvidia-smi", field: "utilization.gpu" });
  });
});
