import type { Finding, JobRecord, Unseen } from "@jobsight/schemas";
import { FINDING_LABELS, firstSentence } from "./finding-labels.js";

/**
 * One paragraph built from the findings (and the unseen list) only: how the job ended, the cause
 * when a finding explains it, the other findings by name, and what could not be seen.
 *
 * @example
 * ```ts
 * buildSummary(record, findings, unseen, true);
 * // "Job 4242 ended OUT_OF_MEMORY. Out-of-memory kill: The job was killed for … Not seen: kernel-log."
 * ```
 */
export function buildSummary(
  record: JobRecord,
  findings: readonly Finding[],
  unseen: readonly Unseen[],
  causeDetermined: boolean,
): string {
  const parts: string[] = [];
  const state = record.outcome?.state;
  parts.push(
    state ? `Job ${record.jobId} ended ${state}.` : `Job ${record.jobId} has no recorded outcome yet.`,
  );
  const errors = findings.filter((f) => f.severity === "error");
  const others = findings.filter((f) => f.severity !== "error");
  for (const f of errors) parts.push(`${FINDING_LABELS[f.kind]}: ${firstSentence(f.claim)}`);
  if (!causeDetermined) parts.push("Cause not determined: nothing observed explains the failure.");
  if (others.length > 0) {
    parts.push(`Also found: ${others.map((f) => FINDING_LABELS[f.kind]).join("; ")}.`);
  }
  if (findings.length === 0) parts.push("Jobsight found nothing to report.");
  const sources = [...new Set(unseen.map((u) => u.source))];
  if (sources.length > 0) parts.push(`Not seen: ${sources.join(", ")}.`);
  const text = parts.join(" ");
  return text.length <= 4096 ? text : `${text.slice(0, 4095)}…`;
}
