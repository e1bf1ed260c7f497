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

/** sacct's own names (its `--format` fields) for the record fields the collector fills from it. */
const SACCT_FIELDS: Readonly<Record<string, string>> = {
  "outcome.state": "State",
  "outcome.exitCode": "ExitCode",
  "outcome.signal": "ExitCode",
  "outcome.reason": "Reason",
  "peaks.memoryBytes": "MaxRSS",
  "peaks.runTimeSeconds": "Elapsed",
  "peaks.cpuTimeSeconds": "TotalCPU",
  submittedAt: "Submit",
  startedAt: "Start",
  endedAt: "End",
  "allocated.cores": "AllocTRES cpu",
  "allocated.memoryBytes": "AllocTRES mem",
  "allocated.gpus": "AllocTRES gres/gpu",
  "allocated.walltimeSeconds": "Timelimit",
  "spec.requested.cores": "ReqTRES cpu",
  "spec.requested.memoryBytes": "ReqTRES mem",
  "spec.requested.gpus": "ReqTRES gres/gpu",
  "spec.requested.walltimeSeconds": "Timelimit",
  "steps.maxRssBytes": "MaxRSS",
  "steps.state": "State",
  "steps.exitCode": "ExitCode",
  "steps.signal": "ExitCode",
  "steps.elapsedSeconds": "Elapsed",
};

/**
 * The scheduler's own name for a record field, when the record was read from `sacct` and the field
 * maps to one of its columns (`peaks.memoryBytes` is `MaxRSS`, the largest over the steps).
 *
 * @example
 * ```ts
 * schedulerFieldName("sacct", "steps.1.maxRssBytes"); // "MaxRSS"
 * ```
 */
export function schedulerFieldName(source: string, path: string): string | undefined {
  if (source !== "sacct") return undefined;
  return SACCT_FIELDS[path.replace(/^steps\.\d+\./, "steps.")];
}
