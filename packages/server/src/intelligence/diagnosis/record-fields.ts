import type { JobRecord } from "@jobsight/schemas";

/**
 * The value of a job-record field by its dotted path, as scheduler evidence names it:
 * `outcome.state`, `spec.requested.memoryBytes`, `steps.1.maxRssBytes` (array elements by position).
 *
 * @example
 * ```ts
 * readRecordField(record, "outcome.signal"); // 9
 * ```
 */
export function readRecordField(record: JobRecord, path: string): string | number | boolean | undefined {
  let node: unknown = record;
  for (const part of path.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = Array.isArray(node) ? node[Number(part)] : (node as Record<string, unknown>)[part];
  }
  return typeof node === "string" || typeof node === "number" || typeof node === "boolean" ? node : undefined;
}
