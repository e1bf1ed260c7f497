import { type NodeEvent, type UsageSample, validators } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { diagnose } from "../diagnose.js";
import { checkEvidence } from "../evidence-check.js";
import { unsupportedNumbers } from "../explain/prose-guard.js";
import { renderDiagnosisMarkdown } from "../explain/render-markdown.js";
import type { DiagnosisInput } from "../input.js";
import { diagnosisScenarios } from "../scenarios/all-scenarios.js";

const NOW = "2026-12-01T00:00:00Z";
type Input = { -readonly [K in keyof DiagnosisInput]: DiagnosisInput[K] };
const scenario = (name: string): Input =>
  structuredClone(diagnosisScenarios.find((s) => s.name === name)!.input) as Input;

// What the node collector sends, once per job and source, the first round a source feeds the job.
const limits = (
  o: { node: string; jobId?: string; time: string },
  source: string,
  reads: "gpu" | "usage",
  cannotSee: string[],
): NodeEvent => ({
  cluster: "hpc1",
  node: o.node,
  time: o.time,
  kind: "source_limits",
  ...(o.jobId ? { jobId: o.jobId } : {}),
  source,
  sourceLimits: { reads, cannotSee },
  message: `${source} cannot see: ${cannotSee.join("; ")}`,
  idempotencyKey: `source-limits:${source}:${o.node}:${o.jobId ?? "node"}`,
});
// The collector's declarations (dcgm-exporter.ts, node-exporter.ts), verbatim.
const DCGM = ["processes on each GPU", "GPUs lost from the bus (nvidia-smi's view)"];
const NODE_EXPORTER = [
  "usage of each job where jobs share the node (nothing is recorded per job)",
  "a job's memory apart from the node's daemons and kernel",
  "memory limits, I/O and pids of the job",
];
const unseenOf = (i: DiagnosisInput) => diagnose(i, { now: NOW }).unseen;

describe("what the sources that fed a job cannot see, in unseen", () => {
  it("names dcgm-exporter's limits for a GPU job read through it, and what they hide", () => {
    // Job 9310 on gpu06, 10:00 to 13:10, one A100 read each 30 s.
    const input = scenario("healthy-gpu");
    input.events = [
      limits({ node: "gpu06", jobId: "9310", time: "2026-11-17T10:00:30Z" }, "dcgm-exporter", "gpu", DCGM),
    ];
    expect(unseenOf(input)).toEqual([
      {
        source: "dcgm-exporter",
        reason:
          "The job's GPU readings on gpu06 came from dcgm-exporter, which cannot see processes on each GPU; GPUs lost from the bus (nvidia-smi's view). For this job: which of its processes used each GPU, and how much GPU memory each held, is unknown; a GPU that dropped out shows only as missing readings, unless the kernel log names its Xid.",
        window: { start: "2026-11-17T10:00:00Z", end: "2026-11-17T13:10:00Z" },
      },
    ]);
  });

  it("names the limit once for every node it applies to", () => {
    const input = scenario("healthy-gpu");
    const second = input.samples.map((s) => ({ ...s, node: "gpu07" }));
    input.samples = [...input.samples, ...second];
    input.record.nodes = ["gpu06", "gpu07"];
    input.events = ["gpu06", "gpu07"].map((node) =>
      limits({ node, jobId: "9310", time: "2026-11-17T10:00:30Z" }, "dcgm-exporter", "gpu", DCGM),
    );
    const found = unseenOf(input).filter((u) => u.source === "dcgm-exporter");
    expect(found).toHaveLength(1);
    expect(found[0].reason).toMatch(/^The job's GPU readings on gpu06 and gpu07 came from dcgm-exporter/);
  });

  it("names node_exporter's limits for a job it read alone on its node, leaving out the shared-node one", () => {
    // Job 9300 alone on cn100 without cgroups: node_exporter's memory in use and busy CPU time.
    const input = scenario("healthy-cpu");
    input.samples = input.samples.map(
      (s): UsageSample => ({
        cluster: s.cluster,
        jobId: s.jobId,
        node: s.node,
        time: s.time,
        memory: {
          currentBytes: s.memory!.currentBytes + 2 ** 30,
          peakBytes: (s.memory!.peakBytes ?? s.memory!.currentBytes) + 2 ** 30,
        },
        cpu: { usageSeconds: s.cpu!.usageSeconds, nodeLoad1: 6.5 },
        ...(s.final ? { final: true } : {}),
      }),
    );
    input.events = [
      limits(
        { node: "cn100", jobId: "9300", time: "2026-11-17T08:00:30Z" },
        "node_exporter",
        "usage",
        NODE_EXPORTER,
      ),
    ];
    const found = unseenOf(input);
    expect(found).toEqual([
      {
        source: "node_exporter",
        reason:
          "The job's usage readings on cn100 came from node_exporter, which cannot see a job's memory apart from the node's daemons and kernel; memory limits, I/O and pids of the job. For this job: its memory figures include the node's daemons and kernel; how close it came to a memory limit is unknown; how much it read and wrote is unknown.",
        window: { start: "2026-11-17T08:00:00Z", end: "2026-11-17T09:30:00Z" },
      },
    ]);
  });

  it("says nothing for a job whose node sent no limits, nor for another job's, nor for a GPU source on a CPU job", () => {
    expect(unseenOf(scenario("healthy-cpu"))).toEqual([]);
    const input = scenario("healthy-cpu");
    input.events = [
      limits({ node: "cn100", jobId: "9301", time: "2026-11-17T08:00:30Z" }, "cgroup-v1", "usage", ["x"]),
      limits({ node: "cn100", jobId: "9300", time: "2026-11-17T08:00:30Z" }, "nvidia-smi", "gpu", ["y"]),
      limits({ node: "cn999", jobId: "9300", time: "2026-11-17T08:00:30Z" }, "proc", "usage", ["z"]),
    ];
    expect(unseenOf(input)).toEqual([]);
  });

  it("names a limit it has no words for with a general consequence", () => {
    const input = scenario("healthy-gpu");
    input.events = [
      limits({ node: "gpu06", jobId: "9310", time: "2026-11-17T10:00:30Z" }, "amd-smi", "gpu", ["fan speed"]),
    ];
    expect(unseenOf(input)[0].reason).toBe(
      "The job's GPU readings on gpu06 came from amd-smi, which cannot see fan speed. For this job: what its GPUs did in those respects is unknown.",
    );
  });

  it("keeps the diagnosis valid, its evidence real, and shows the limit in the summary, Markdown and agent prompt", () => {
    const input = scenario("healthy-gpu");
    input.events = [
      limits({ node: "gpu06", jobId: "9310", time: "2026-11-17T10:00:30Z" }, "dcgm-exporter", "gpu", DCGM),
    ];
    const d = diagnose(input, { now: NOW });
    expect(validators.Diagnosis.validate(d).ok).toBe(true);
    expect(checkEvidence(d, input)).toEqual([]);
    expect(d.summary).toContain("Not seen: dcgm-exporter.");
    expect(renderDiagnosisMarkdown(d)).toContain(
      "- **dcgm-exporter** (2026-11-17T10:00:00Z to 2026-11-17T13:10:00Z): The job's GPU readings on gpu06",
    );
    expect(d.agentPrompt).toContain(
      "- dcgm-exporter (2026-11-17T10:00:00Z to 2026-11-17T13:10:00Z): The job's GPU readings on gpu06",
    );
    // Prose that repeats the unseen entry's words adds no number the diagnosis lacks.
    expect(unsupportedNumbers("GPU readings on gpu06 came from dcgm-exporter.", d)).toEqual([]);
  });
});
