import type { Diagnosis, EvidenceRef } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { diagnose } from "./diagnose.js";
import { checkEvidence } from "./evidence-check.js";
import { diagnosisScenarios } from "./scenarios/all-scenarios.js";

const scenario = (name: string) => structuredClone(diagnosisScenarios.find((s) => s.name === name)!);

/** The diagnosis of a scenario with its first finding's evidence replaced by `evidence`. */
function withEvidence(name: string, evidence: EvidenceRef) {
  const s = scenario(name);
  const d: Diagnosis = diagnose(s.input, { now: "2026-12-01T00:00:00Z" });
  d.findings[0].evidence = [evidence];
  return checkEvidence(d, s.input);
}

describe("checkEvidence", () => {
  it("accepts the evidence the rules cite", () => {
    const s = scenario("oom-heap-leak");
    expect(checkEvidence(diagnose(s.input), s.input)).toEqual([]);
  });

  it("rejects a metric value no sample had", () => {
    const problems = withEvidence("oom-heap-leak", {
      kind: "metric",
      source: "cgroup:memory.current",
      metric: "memory.currentBytes",
      node: "cn041",
      window: { start: "2026-11-03T09:00:30Z", end: "2026-11-03T09:51:30Z" },
      values: [33_000_000_000],
      text: "memory reached 33 GB",
    });
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toMatch(/not in the samples: 33000000000/);
  });

  it("rejects a metric on another node, outside the window, or from the wrong source", () => {
    const base = {
      kind: "metric" as const,
      source: "cgroup:memory.stat",
      metric: "memory.anonBytes",
      node: "cn041",
      window: { start: "2026-11-03T09:00:30Z", end: "2026-11-03T09:00:30Z" },
      text: "anon",
    };
    expect(withEvidence("oom-heap-leak", base)).toEqual([]);
    expect(withEvidence("oom-heap-leak", { ...base, node: "cn042" })).toHaveLength(1);
    expect(
      withEvidence("oom-heap-leak", {
        ...base,
        window: { start: "2026-11-04T00:00:00Z", end: "2026-11-04T01:00:00Z" },
      }),
    ).toHaveLength(1);
    expect(withEvidence("oom-heap-leak", { ...base, source: "nvidia-smi" })).toHaveLength(1);
  });

  it("rejects an event line that was not logged verbatim", () => {
    const s = scenario("oom-heap-leak");
    const real = s.input.events[0];
    const ev: EvidenceRef = {
      kind: "event",
      source: "kmsg",
      node: real.node,
      window: { start: real.time, end: real.time },
      line: real.message,
      values: [48213],
      text: "oom kill",
    };
    expect(withEvidence("oom-heap-leak", ev)).toEqual([]);
    expect(
      withEvidence("oom-heap-leak", { ...ev, line: real.message.replace("48213", "48214") }),
    ).toHaveLength(1);
    expect(withEvidence("oom-heap-leak", { ...ev, values: [1] })).toHaveLength(1);
  });

  it("rejects a scheduler field that does not exist or does not say what the evidence says", () => {
    const ok: EvidenceRef = {
      kind: "scheduler",
      source: "sacct",
      metric: "outcome.state",
      text: "state OUT_OF_MEMORY",
    };
    expect(withEvidence("oom-heap-leak", ok)).toEqual([]);
    expect(withEvidence("oom-heap-leak", { ...ok, text: "state TIMEOUT" })).toHaveLength(1);
    expect(withEvidence("oom-heap-leak", { ...ok, metric: "outcome.nothing" })).toHaveLength(1);
    expect(
      withEvidence("oom-heap-leak", {
        kind: "scheduler",
        source: "sacct",
        metric: "steps.0.maxRssBytes",
        values: [1],
        text: "x",
      }),
    ).toHaveLength(1);
  });

  it("rejects a process named or stated wrongly", () => {
    const ev: EvidenceRef = {
      kind: "process",
      source: "proc:/proc/<pid>/status",
      metric: "processes.48200.rssBytes",
      node: "cn041",
      window: { start: "2026-11-03T09:00:30Z", end: "2026-11-03T09:00:30Z" },
      values: [4 * 2 ** 20],
      text: "bash (pid 48200), state S",
    };
    expect(withEvidence("oom-heap-leak", ev)).toEqual([]);
    expect(withEvidence("oom-heap-leak", { ...ev, text: "python (pid 48200), state S" })).toHaveLength(1);
    expect(withEvidence("oom-heap-leak", { ...ev, text: "bash (pid 48200), state D" })).toHaveLength(1);
  });

  it("rejects log lines and run times that are not in the input", () => {
    expect(
      withEvidence("exit-1", {
        kind: "log",
        source: "slurm-output",
        line: "Traceback (most recent call last):",
        text: "x",
      }),
    ).toEqual([]);
    expect(
      withEvidence("exit-1", { kind: "log", source: "slurm-output", line: "Segmentation fault", text: "x" }),
    ).toHaveLength(1);
    expect(
      withEvidence("timeout-with-history", {
        kind: "history",
        source: "history",
        values: [7420, 8430],
        text: "x",
      }),
    ).toEqual([]);
    expect(
      withEvidence("timeout-with-history", { kind: "history", source: "history", values: [7421], text: "x" }),
    ).toHaveLength(1);
  });
});
