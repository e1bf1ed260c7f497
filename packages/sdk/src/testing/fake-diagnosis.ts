import type { Diagnosis, JobRecord, NodeEvent } from "@jobsight/schemas";

type Finding = Diagnosis["findings"][number];

function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

/**
 * The fake server's diagnosis: a few rules on the job record and its node events (OOM kill,
 * timeout, GPU XID, failure exit code, over-requested memory). Enough to exercise a CI gate.
 */
export function fakeDiagnose(job: JobRecord, events: NodeEvent[], now: Date): Diagnosis {
  const findings: Finding[] = [];
  const state = job.outcome?.state;
  const requestedMemory = job.spec.requested.memoryBytes;
  const peakMemory = job.peaks?.memoryBytes;
  const schedulerEvidence = {
    kind: "scheduler" as const,
    source: job.source,
    metric: "outcome.state",
    text: `The scheduler recorded state ${state ?? "unknown"}${job.outcome?.signal ? ` (signal ${job.outcome.signal})` : ""}.`,
  };

  const oomEvents = events.filter((e) => e.kind === "oom_kill");
  if (state === "OUT_OF_MEMORY" || oomEvents.length > 0) {
    findings.push({
      kind: "oom_kill",
      severity: "error",
      claim: `The job was killed for memory${requestedMemory ? ` at its ${gib(requestedMemory)} limit` : ""}.`,
      confidence: 0.95,
      evidence: [
        schedulerEvidence,
        ...oomEvents.map((e) => ({
          kind: "event" as const,
          source: "kmsg",
          node: e.node,
          text: e.message ?? "OOM kill",
        })),
      ],
    });
  }
  if (state === "TIMEOUT") {
    findings.push({
      kind: "timeout",
      severity: "error",
      claim: `The job reached its walltime limit${job.spec.requested.walltimeSeconds ? ` of ${job.spec.requested.walltimeSeconds} s` : ""}.`,
      confidence: 0.95,
      evidence: [schedulerEvidence],
    });
  }
  for (const e of events.filter((x) => x.kind === "gpu_xid")) {
    findings.push({
      kind: "gpu_fault_hardware",
      severity: "error",
      claim: "A GPU reported an XID error while the job ran.",
      confidence: 0.8,
      evidence: [{ kind: "event", source: "kmsg", node: e.node, text: e.message ?? "GPU XID error" }],
    });
  }
  if (state === "FAILED" && findings.length === 0) {
    findings.push({
      kind: "job_error",
      severity: "error",
      claim: `The job's own program failed with exit code ${job.outcome?.exitCode ?? "unknown"}.`,
      confidence: 0.7,
      evidence: [schedulerEvidence],
    });
  }
  if (
    state === "COMPLETED" &&
    requestedMemory &&
    peakMemory !== undefined &&
    peakMemory < requestedMemory / 2
  ) {
    findings.push({
      kind: "memory_overrequested",
      severity: "warning",
      claim: `The job used at most ${gib(peakMemory)} of the ${gib(requestedMemory)} it asked for.`,
      confidence: 0.9,
      evidence: [
        {
          kind: "scheduler",
          source: job.source,
          metric: "peaks.memoryBytes",
          values: [peakMemory],
          unit: "By",
          text: `peak ${gib(peakMemory)}`,
        },
      ],
    });
  }

  const failed = state !== undefined && state !== "COMPLETED";
  const errors = findings.filter((f) => f.severity === "error");
  const summary =
    findings.length === 0
      ? `Job ${job.jobId} ${state ? `ended ${state}` : "has not ended"}; nothing to report.`
      : findings.map((f) => f.claim).join(" ");
  return {
    cluster: job.cluster,
    jobId: job.jobId,
    generatedAt: now.toISOString(),
    ...(state ? { state } : {}),
    causeDetermined: !failed || errors.length > 0,
    summary,
    findings,
    unseen:
      events.length === 0
        ? [{ source: "kernel-log", reason: "No node events were recorded for this job." }]
        : [],
    agentPrompt: `Job ${job.jobId} on cluster ${job.cluster} ended ${state ?? "unknown"}. Findings: ${summary}`,
  };
}

/** Render a diagnosis as Markdown (what `Accept: text/markdown` returns). */
export function renderDiagnosisMarkdown(d: Diagnosis): string {
  const lines = [`# Job ${d.jobId} on ${d.cluster}${d.state ? ` — ${d.state}` : ""}`, "", d.summary, ""];
  if (d.findings.length > 0) {
    lines.push("## Findings", "");
    for (const f of d.findings) {
      lines.push(`- **${f.severity}** \`${f.kind}\` (confidence ${f.confidence}): ${f.claim}`);
      for (const e of f.evidence) lines.push(`  - ${e.kind} from ${e.source}: ${e.text}`);
    }
    lines.push("");
  }
  if (d.unseen.length > 0) {
    lines.push("## Not seen", "");
    for (const u of d.unseen) lines.push(`- ${u.source}: ${u.reason}`);
    lines.push("");
  }
  return lines.join("\n");
}
