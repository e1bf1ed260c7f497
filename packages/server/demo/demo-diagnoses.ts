import type { Diagnosis } from "@jobsight/schemas";

/** A few lines per diagnosis: the verdict, then each finding with its severity and title. */
export function describeDiagnosis(jobId: string, what: string, d: Diagnosis): string {
  const lines = [
    `  job ${jobId} (${what}): ${d.causeDetermined ? "cause determined" : "cause not determined"}`,
  ];
  for (const f of d.findings)
    lines.push(`    - [${f.severity}] ${f.kind}: ${f.claim.replace(/\s+/g, " ").slice(0, 160)}`);
  lines.push(`    ${d.summary.replace(/\s+/g, " ").slice(0, 400)}`);
  return lines.join("\n");
}
