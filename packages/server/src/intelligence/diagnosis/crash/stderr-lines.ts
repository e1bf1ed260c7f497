import type { JobRecord } from "@jobsight/schemas";
import type { DiagnosisInput, JobLogLine } from "../input.js";

/** The evidence source of lines from the stderr tail the collector put in the job record. */
export const STDERR_TAIL_SOURCE = "stderr";

/**
 * The lines of the stderr tail in the record (`outcome.stderrTail`), verbatim, blank lines left
 * out; empty when the collector sent none.
 *
 * @example
 * ```ts
 * stderrTailLines(record).at(-1)?.line; // "torch.OutOfMemoryError: CUDA out of memory. …"
 * ```
 */
export function stderrTailLines(record: JobRecord): JobLogLine[] {
  const text = record.outcome?.stderrTail?.text ?? "";
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim().length > 0)
    .map((line) => ({ source: STDERR_TAIL_SOURCE, line }));
}

/**
 * Every line of the job's output a rule may cite: the uploaded log lines, then the record's own
 * stderr tail. Both are part of the input, so evidence on either points back into it.
 */
export function jobLogLines(input: DiagnosisInput): JobLogLine[] {
  return [...(input.logLines ?? []), ...stderrTailLines(input.record)];
}
