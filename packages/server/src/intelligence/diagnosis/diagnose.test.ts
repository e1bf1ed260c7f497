import { describe, expect, it } from "vitest";
import { diagnose } from "./diagnose.js";
import { checkEvidence } from "./evidence-check.js";
import type { DiagnosisInput } from "./input.js";
import { ALL_RULES } from "./rules/all-rules.js";
import { diagnosisScenarios } from "./scenarios/all-scenarios.js";
import { GIB } from "./scenarios/build-samples.js";
import { unavailable, xidEvent } from "./scenarios/kernel-events.js";
import { DIAGNOSIS_THRESHOLDS } from "./thresholds.js";

const NOW = "2026-12-01T00:00:00Z";
/** A scenario's input, copied so a test may change any part of it. */
const input = (name: string): { -readonly [K in keyof DiagnosisInput]: DiagnosisInput[K] } =>
  structuredClone(diagnosisScenarios.find((s) => s.name === name)!.input);
const kinds = (i: DiagnosisInput) => diagnose(i, { now: NOW }).findings.map((f) => f.kind);

describe("diagnose", () => {
  it("is a pure function of its input", () => {
    const i = input("stalled-data-loader");
    expect(diagnose(i, { now: NOW })).toEqual(diagnose(structuredClone(i), { now: NOW }));
  });

  it("stamps the current time unless told otherwise", () => {
    const before = Date.now();
    const d = diagnose(input("healthy-cpu"));
    expect(Date.parse(d.generatedAt)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("reports a window without samples longer than three median intervals", () => {
    const i = input("healthy-cpu");
    const lost = i.samples.filter((s) => s.time > "2026-11-17T08:40:00Z" && s.time < "2026-11-17T08:50:00Z");
    i.samples = i.samples.filter((s) => !lost.includes(s));
    const d = diagnose(i, { now: NOW });
    expect(d.unseen).toEqual([
      expect.objectContaining({
        source: "usage-samples",
        window: { start: "2026-11-17T08:40:00Z", end: "2026-11-17T08:50:00Z" },
      }),
    ]);
    expect(d.findings).toEqual([]);
  });

  it("does not call a SIGKILL an OOM kill when memory stayed far below the limit", () => {
    const i = input("exit-1");
    i.record.outcome = { state: "FAILED", exitCode: 137 };
    const d = diagnose(i, { now: NOW });
    expect(d.findings.map((f) => f.kind)).toEqual(["job_error"]);
    expect(d.findings[0].claim).toContain("killed by SIGKILL");
    expect(d.causeDetermined).toBe(false);
  });

  it("reports a step killed for memory in a job that completed as a warning", () => {
    // As SLURM 22.05 without cgroups reports it: job COMPLETED 0:0, step 0 CANCELLED 0:9 above its limit.
    const i = input("healthy-cpu");
    i.record.steps = [
      { stepId: "batch", state: "COMPLETED", exitCode: 0 },
      { stepId: "0", state: "CANCELLED", signal: 9, maxRssBytes: 17 * GIB, elapsedSeconds: 1200 },
    ];
    const d = diagnose(i, { now: NOW });
    expect(d.findings).toHaveLength(1);
    expect(d.findings[0]).toMatchObject({ kind: "oom_kill", severity: "warning" });
    expect(d.findings[0].claim).toContain("step 0");
    expect(d.causeDetermined).toBe(true);
    expect(checkEvidence(d, i)).toEqual([]);
  });

  it("does not trust exit code 0 on a FAILED SLURM job (sacct --json 22.05)", () => {
    const i = input("exit-1");
    i.record.outcome = { state: "FAILED", exitCode: 0 };
    const d = diagnose(i, { now: NOW });
    expect(d.findings[0].kind).toBe("job_error");
    expect(d.findings[0].claim).toContain("the real code is unknown");
  });

  it("ignores an Xid on a GPU of the node that is not the job's, and a lone Xid 45", () => {
    const i = input("healthy-gpu");
    i.events = [
      xidEvent({
        cluster: "hpc1",
        node: "gpu06",
        time: "2026-11-17T11:00:00Z",
        pci: "0000:87:00",
        code: 79,
        detail: "GPU has fallen off the bus.",
      }),
      xidEvent({
        cluster: "hpc1",
        node: "gpu06",
        time: "2026-11-17T11:00:00Z",
        pci: "0000:3b:00",
        code: 45,
        pid: 4,
        name: "python",
        detail: "Ch 00000010",
      }),
    ];
    expect(kinds(i)).toEqual([]);
  });

  it("attributes an Xid on the job's GPU even when the job completed (a warning for the node)", () => {
    const i = input("healthy-gpu");
    i.events = [
      xidEvent({
        cluster: "hpc1",
        node: "gpu06",
        time: "2026-11-17T11:00:00Z",
        pci: "0000:3b:00",
        code: 63,
        detail: "Row Remapper: New row marked for remapping, reset gpu to activate.",
      }),
    ];
    const d = diagnose(i, { now: NOW });
    expect(d.findings).toEqual([
      expect.objectContaining({ kind: "gpu_fault_hardware", severity: "warning" }),
    ]);
  });

  it("ignores an Xid from long before the job", () => {
    const i = input("healthy-gpu");
    i.events = [
      xidEvent({
        cluster: "hpc1",
        node: "gpu06",
        time: "2026-11-16T11:00:00Z",
        pci: "0000:3b:00",
        code: 79,
        detail: "GPU has fallen off the bus.",
      }),
    ];
    expect(kinds(i)).toEqual([]);
  });

  it("ignores a kernel OOM kill of another job's process on the same node", () => {
    const i = input("exit-1");
    const oom = structuredClone(input("oom-heap-leak").events[0]);
    i.events = [{ ...oom, node: "cn092", time: "2026-11-16T09:03:00Z" }];
    expect(kinds(i)).toEqual(["job_error"]);
  });

  it("lists every node's kernel log as unseen when the caller says it was not readable", () => {
    const d = diagnose({ ...input("healthy-cpu"), sourcesSeen: { kernelLog: false } }, { now: NOW });
    expect(d.unseen.map((u) => u.source)).toEqual(["kernel-log"]);
    expect(d.unseen[0].reason).toContain("cn100");
  });

  it("makes no GPU claim for a GPU job whose GPU metrics were switched off", () => {
    const i = { ...input("gpus-unused"), sourcesSeen: { gpuMetrics: false } };
    const d = diagnose(i, { now: NOW });
    expect(d.findings).toEqual([]);
    expect(d.unseen.map((u) => u.source)).toEqual(["gpu-metrics"]);
  });

  it("keeps the stalled-loader finding and drops the under-utilisation it explains", () => {
    const i = input("stalled-data-loader");
    const all = ALL_RULES.filter((r) => r.name !== "stalled-data-loader");
    const t = { ...DIAGNOSIS_THRESHOLDS, gpuLowUtilisationPercent: 70 };
    expect(diagnose(i, { now: NOW, rules: all, thresholds: t }).findings.map((f) => f.kind)).toEqual([
      "gpu_underutilised",
    ]);
    expect(diagnose(i, { now: NOW, thresholds: t }).findings.map((f) => f.kind)).toEqual([
      "stalled_data_loader",
    ]);
  });

  it("judges by the thresholds it is given", () => {
    const i = input("cpu-low-efficiency");
    expect(kinds(i)).toEqual(["cpu_low_efficiency"]);
    expect(
      diagnose(i, { now: NOW, thresholds: { ...DIAGNOSIS_THRESHOLDS, cpuLowEfficiencyShare: 0.05 } })
        .findings,
    ).toEqual([]);
  });

  it("names a rule that could not run instead of failing the diagnosis", () => {
    const broken = {
      name: "broken",
      evaluate: () => {
        throw new RangeError("bad sample");
      },
    };
    const d = diagnose(input("cancelled"), {
      now: NOW,
      rules: [...ALL_RULES.slice(0, -1), broken, ALL_RULES[ALL_RULES.length - 1]],
    });
    expect(d.findings.map((f) => f.kind)).toEqual(["cancelled"]);
    expect(d.unseen).toEqual([
      { source: "rule:broken", reason: "The broken rule could not run: RangeError: bad sample" },
    ]);
  });

  it("asks about a running job without claiming how it ended", () => {
    const i = input("healthy-cpu");
    i.record = { ...i.record, phase: "started", outcome: undefined, endedAt: undefined };
    const d = diagnose(i, { now: NOW });
    expect(d.state).toBeUndefined();
    expect(d.causeDetermined).toBe(true);
    expect(d.unseen.map((u) => u.source)).toContain("job-outcome");
  });

  it("builds a self-contained agent prompt with the findings, the evidence, the submission and a question", () => {
    const d = diagnose(input("oom-heap-leak"), { now: NOW });
    expect(d.agentPrompt).toContain("## Findings");
    expect(d.agentPrompt).toContain("Out-of-memory kill (oom_kill, confidence 95%)");
    expect(d.agentPrompt).toContain("> Memory cgroup out of memory: Killed process 48213 (python)");
    expect(d.agentPrompt).toContain("#SBATCH --mem=32G");
    expect(d.agentPrompt).toMatch(/## Question\n1\. Find what in the code most likely holds the memory/);
    const none = diagnose(input("healthy-cpu"), { now: NOW });
    expect(none.agentPrompt).toContain("Not available: ask the engineer for the submission");
  });

  it("says in the summary when the cause was not determined, and what was not seen", () => {
    const d = diagnose(input("kernel-log-unreadable"), { now: NOW });
    expect(d.summary).toContain("Cause not determined");
    expect(d.summary).toContain("Not seen: kernel-log.");
  });

  it("tells the collector's unavailable-source events apart from its samples", () => {
    const i = input("healthy-cpu");
    i.events = [
      unavailable({
        cluster: "hpc1",
        node: "cn100",
        time: "2026-11-17T08:00:02Z",
        source: "proc",
        message: "EACCES reading /proc/4321/status",
      }),
    ];
    expect(diagnose(i, { now: NOW }).unseen).toEqual([
      expect.objectContaining({ source: "usage-samples", reason: expect.stringContaining("EACCES") }),
    ]);
  });
});

describe("diagnose on several nodes", () => {
  it("names the node no collector reported from, and claims nothing about it", () => {
    const i = input("healthy-cpu");
    i.record.nodes = ["cn100", "cn101"];
    const d = diagnose(i, { now: NOW });
    expect(d.findings).toEqual([]);
    expect(d.unseen.map((u) => [u.source, u.reason.split(":")[0]])).toEqual([
      ["usage-samples", "No usage samples from cn101"],
      ["kernel-log", "The kernel log of cn101 was not read"],
    ]);
  });
});
