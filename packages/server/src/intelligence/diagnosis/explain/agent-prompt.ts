import type { EvidenceRef, Finding, JobRecord, Unseen } from "@jobsight/schemas";
import { AGENT_QUESTIONS } from "./agent-questions.js";
import { FINDING_LABELS } from "./finding-labels.js";
import { formatBytes, formatDuration } from "./format.js";

/** How many values of one piece of evidence the prompt quotes. */
const QUOTED_VALUES = 8;

/** What the agent prompt is built from. */
export interface AgentPromptParts {
  readonly record: JobRecord;
  readonly findings: readonly Finding[];
  readonly unseen: readonly Unseen[];
  readonly causeDetermined: boolean;
  readonly submission?: string;
}

/**
 * A self-contained prompt for the engineer to paste into their own coding agent: the job, the
 * findings with their evidence, what could not be seen, the submission, and the question. Jobsight
 * writes no fix; the agent, reading the code, may propose one.
 *
 * @example
 * ```ts
 * const prompt = buildAgentPrompt({ record, findings, unseen, causeDetermined: true, submission });
 * ```
 */
export function buildAgentPrompt(p: AgentPromptParts): string {
  const r = p.record;
  const out: string[] = [];
  out.push(
    `A batch job on a compute cluster ${r.outcome ? `ended ${r.outcome.state}` : "has not ended yet"}. Jobsight, the cluster's monitoring tool, observed it and made the findings below from measurements; each cites its evidence. Base your answer on this evidence and on the job's code; where the evidence is not enough, say what is missing rather than guessing, and do not invent measurements.`,
    "",
    "## The job",
    ...jobLines(r),
    "",
  );
  if (p.findings.length === 0) {
    out.push("## Findings", "Jobsight found nothing wrong with this job.", "");
  } else {
    out.push("## Findings (causes before the symptoms they caused)");
    p.findings.forEach((f, i) => {
      const span = f.window ? ` [${f.window.start} to ${f.window.end}]` : "";
      out.push(
        `${f.rank ?? i + 1}. [${f.severity}] ${FINDING_LABELS[f.kind]} (${f.kind}, confidence ${Math.round(f.confidence * 100)}%)${span}: ${f.claim}`,
      );
      out.push("   Evidence:");
      for (const e of f.evidence) out.push(...evidenceLines(e));
    });
    out.push("");
  }
  if (!p.causeDetermined) out.push("The cause of the failure was not determined from what was observed.", "");
  if (p.unseen.length > 0) {
    out.push("## What could not be seen");
    for (const u of p.unseen)
      out.push(`- ${u.source}${u.window ? ` (${u.window.start} to ${u.window.end})` : ""}: ${u.reason}`);
    out.push("");
  }
  out.push("## The job's submission");
  if (p.submission) out.push(fenced(p.submission));
  else
    out.push("Not available: ask the engineer for the submission script or manifest and the code it runs.");
  out.push("", "## Question");
  const kinds = [...new Set(p.findings.map((f) => f.kind))];
  if (kinds.length === 0)
    out.push(
      "Nothing needs fixing. If asked anyway, confirm from the code that the job's requests match what it used.",
    );
  else for (const [i, k] of kinds.entries()) out.push(`${i + 1}. ${AGENT_QUESTIONS[k]}`);
  return out.join("\n");
}

function jobLines(r: JobRecord): string[] {
  const s = r.spec;
  const req = s.requested;
  const lines = [
    `- Job ${r.jobId} on cluster ${r.cluster} (${s.scheduler}), user ${s.user}${s.jobName ? `, name ${s.jobName}` : ""}${s.partition ? `, partition ${s.partition}` : ""}${s.executable ? `, runs ${s.executable}` : ""}`,
    `- Requested: ${
      [
        req.cores !== undefined ? `${req.cores} cores` : undefined,
        req.memoryBytes !== undefined ? `${formatBytes(req.memoryBytes)} memory` : undefined,
        req.gpus !== undefined ? `${req.gpus} GPUs${req.gpuModel ? ` (${req.gpuModel})` : ""}` : undefined,
        req.walltimeSeconds !== undefined ? `${formatDuration(req.walltimeSeconds)} walltime` : undefined,
        req.nodes !== undefined ? `${req.nodes} node${req.nodes > 1 ? "s" : ""}` : undefined,
      ]
        .filter(Boolean)
        .join(", ") || "nothing recorded"
    }`,
  ];
  if (r.nodes?.length) lines.push(`- Ran on: ${r.nodes.join(", ")}`);
  if (r.startedAt) lines.push(`- Started ${r.startedAt}${r.endedAt ? `, ended ${r.endedAt}` : ""}`);
  const o = r.outcome;
  if (o) {
    lines.push(
      `- Outcome: ${o.state}${o.exitCode !== undefined ? `, exit code ${o.exitCode}` : ""}${o.signal !== undefined ? `, signal ${o.signal}` : ""}${o.reason ? `, reason ${o.reason}` : ""}`,
    );
  }
  return lines;
}

function evidenceLines(e: EvidenceRef): string[] {
  const where = [
    e.kind,
    e.metric,
    e.node && `on ${e.node}`,
    e.window &&
      (e.window.start === e.window.end ? `at ${e.window.start}` : `${e.window.start} to ${e.window.end}`),
  ]
    .filter(Boolean)
    .join(" ");
  const values =
    e.values && e.values.length > 0
      ? ` Values${e.unit ? ` (${e.unit})` : ""}: ${e.values.slice(0, QUOTED_VALUES).join(", ")}${e.values.length > QUOTED_VALUES ? `, … (${e.values.length} in all)` : ""}.`
      : "";
  const lines = [`   - [${e.source}${e.field ? ` ${e.field}` : ""}: ${where}] ${e.text}${values}`];
  if (e.line) lines.push(`     > ${e.line}`);
  return lines;
}

/** Text in a Markdown code fence longer than any run of backticks inside it. */
export function fenced(text: string, info = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${info}\n${text.replace(/\n$/, "")}\n${fence}`;
}
