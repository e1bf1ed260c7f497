import type { Finding } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { diagnose } from "./diagnose.js";
import { checkEvidence } from "./evidence-check.js";
import type { DiagnosisInput } from "./input.js";
import { rankFindings } from "./ranking.js";
import { diagnosisScenarios } from "./scenarios/all-scenarios.js";
import { oomKillEvent, xidEvent } from "./scenarios/kernel-events.js";

const NOW = "2026-12-01T00:00:00Z";
/** A scenario's input, copied so a test may change any part of it. */
const scenario = (name: string): { -readonly [K in keyof DiagnosisInput]: DiagnosisInput[K] } =>
  structuredClone(diagnosisScenarios.find((s) => s.name === name)!.input);

/**
 * The timeout scenario (2 h limit, job 8120 on cn022) with a GPU that fell off the bus and, a
 * little later, a worker killed for memory: the job then ran into its limit.
 */
function faultThenOomThenTimeout(): DiagnosisInput {
  const input = scenario("timeout-with-history");
  input.record.spec.requested.gpus = 1;
  input.events = [
    xidEvent({
      cluster: "hpc1",
      node: "cn022",
      time: "2026-11-11T06:40:00Z",
      jobId: "8120",
      pci: "0000:3b:00",
      code: 79,
      detail: "GPU has fallen off the bus.",
    }),
    oomKillEvent({
      cluster: "hpc1",
      node: "cn022",
      time: "2026-11-11T06:41:10Z",
      jobId: "8120",
      pid: 51234,
      name: "python",
      totalVmKb: 9_000_000,
      anonRssKb: 6_500_000,
      fileRssKb: 2_048,
      shmemRssKb: 0,
      uid: 1003,
      pgtablesKb: 14_000,
      memcg: "/system.slice/slurmstepd.scope/job_8120",
      taskMemcg: "/system.slice/slurmstepd.scope/job_8120/step_batch/user/task_0",
    }),
  ];
  return input;
}

describe("ranking findings", () => {
  it("puts a hardware fault before the out-of-memory kill before the timeout it led to", () => {
    const input = faultThenOomThenTimeout();
    const d = diagnose(input, { now: NOW });
    expect(d.findings.map((f) => [f.rank, f.kind, f.severity])).toEqual([
      [1, "gpu_fault_hardware", "error"],
      [2, "oom_kill", "warning"],
      [3, "timeout", "error"],
    ]);
    expect(checkEvidence(d, input)).toEqual([]);
  });

  it("gives each finding the span it covers: its events, or the run for how the run ended", () => {
    const d = diagnose(faultThenOomThenTimeout(), { now: NOW });
    const window = (kind: string) => d.findings.find((f) => f.kind === kind)?.window;
    expect(window("gpu_fault_hardware")).toEqual({
      start: "2026-11-11T06:40:00Z",
      end: "2026-11-11T06:40:00Z",
    });
    expect(window("timeout")).toEqual({ start: "2026-11-11T06:00:00Z", end: "2026-11-11T08:00:45Z" });
    // The kill and the memory readings its claim cites.
    const oom = window("oom_kill")!;
    expect(oom.start <= "2026-11-11T06:41:10Z" && oom.end >= "2026-11-11T06:41:10Z").toBe(true);
  });

  it("orders by cause before severity and confidence, and keeps a rule's own window", () => {
    const finding = (kind: Finding["kind"], severity: Finding["severity"], confidence: number): Finding => ({
      kind,
      severity,
      claim: kind,
      confidence,
      evidence: [{ kind: "scheduler", source: "sacct", metric: "outcome.state", text: "x" }],
    });
    const run = { start: "2026-11-11T06:00:00Z", end: "2026-11-11T08:00:00Z" };
    const own = { start: "2026-11-11T07:00:00Z", end: "2026-11-11T07:10:00Z" };
    const ranked = rankFindings(
      [
        finding("cpu_low_efficiency", "warning", 0.99),
        finding("timeout", "error", 0.99),
        { ...finding("stalled_data_loader", "warning", 0.5), window: own },
        finding("node_failure", "error", 0.5),
        finding("oom_kill", "warning", 0.6),
      ],
      run,
    );
    expect(ranked.map((f) => f.kind)).toEqual([
      "node_failure",
      "oom_kill",
      "timeout",
      "stalled_data_loader",
      "cpu_low_efficiency",
    ]);
    expect(ranked.map((f) => f.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(ranked[3].window).toEqual(own);
    expect(ranked[0].window).toEqual(run);
  });
});
