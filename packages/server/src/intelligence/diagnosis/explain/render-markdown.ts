import type { Diagnosis, EvidenceRef } from "@jobsight/schemas";
import { fenced } from "./agent-prompt.js";
import { FINDING_LABELS } from "./finding-labels.js";

/** Values of one piece of evidence shown inline; the rest are counted. */
const SHOWN_VALUES = 6;

/**
 * Renders a diagnosis as Markdown, for `GET /v1/jobs/:id/diagnosis` with `Accept: text/markdown`
 * and for the CLI: the summary, each finding with its evidence, what could not be seen, the
 * optional prose (marked as a language model's) and the prompt for a coding agent.
 *
 * @example
 * ```ts
 * reply.type("text/markdown; charset=utf-8").send(renderDiagnosisMarkdown(diagnosis));
 * ```
 */
export function renderDiagnosisMarkdown(d: Diagnosis): string {
  const out: string[] = [];
  out.push(`# Diagnosis of job ${escapeMarkdown(d.jobId)} on ${escapeMarkdown(d.cluster)}`, "");
  out.push(
    `- State: ${d.state ?? "not ended"}`,
    `- Cause: ${d.causeDetermined ? (d.findings.some((f) => f.severity === "error") ? "determined" : "no failure to explain") : "**not determined**"}`,
    `- Generated: ${d.generatedAt}`,
    "",
    escapeMarkdown(d.summary),
    "",
  );
  out.push("## Findings", "");
  if (d.findings.length === 0) out.push("No finding.", "");
  d.findings.forEach((f, i) => {
    out.push(
      `### ${f.rank ?? i + 1}. ${FINDING_LABELS[f.kind]} (${f.severity}, confidence ${Math.round(f.confidence * 100)}%)`,
      "",
    );
    if (f.window) out.push(`Covers ${windowText(f.window)}.`, "");
    out.push(escapeMarkdown(f.claim), "", "Evidence:", "");
    for (const e of f.evidence) out.push(...evidenceItem(e));
    out.push("");
  });
  out.push("## Not seen", "");
  if (d.unseen.length === 0) out.push("Every source that mattered was seen.", "");
  for (const u of d.unseen) {
    out.push(
      `- **${escapeMarkdown(u.source)}**${u.window ? ` (${u.window.start} to ${u.window.end})` : ""}: ${escapeMarkdown(u.reason)}`,
    );
  }
  if (d.unseen.length > 0) out.push("");
  if (d.prose) {
    out.push(
      "## In plain words",
      "",
      "_Rephrased by a language model from the findings above; it adds no claims._",
      "",
      escapeMarkdown(d.prose),
      "",
    );
  }
  out.push("## Prompt for a coding agent", "", fenced(d.agentPrompt, "text"), "");
  return out.join("\n");
}

function evidenceItem(e: EvidenceRef): string[] {
  const where = [
    e.metric && `\`${e.metric}\``,
    e.node && `on ${escapeMarkdown(e.node)}`,
    e.window && windowText(e.window),
  ]
    .filter(Boolean)
    .join(" ");
  const values =
    e.values && e.values.length > 0
      ? ` — values${e.unit ? ` (${e.unit})` : ""}: ${e.values.slice(0, SHOWN_VALUES).join(", ")}${e.values.length > SHOWN_VALUES ? `, … (${e.values.length})` : ""}`
      : "";
  const lines = [
    `- ${e.kind} from ${escapeMarkdown(e.source)}${e.field ? ` (${escapeMarkdown(e.field)})` : ""}${where ? `, ${where}` : ""}: ${escapeMarkdown(e.text)}${values}${e.textValue ? ` — value: ${escapeMarkdown(e.textValue)}` : ""}`,
  ];
  if (e.line) lines.push(`  ${fenced(e.line).split("\n").join("\n  ")}`);
  return lines;
}

function windowText(w: { start: string; end: string }): string {
  return w.start === w.end ? `at ${w.start}` : `from ${w.start} to ${w.end}`;
}

/** Keeps text from a job (names, lines) from being read as Markdown structure. */
function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_[\]<>#|])/g, "\\$1");
}
