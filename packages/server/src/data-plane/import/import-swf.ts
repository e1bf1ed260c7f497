import type { JobRecord, JobState } from "@jobsight/schemas";
import {
  fileSourceId,
  type ImportHistoryOptions,
  type ImportItem,
  type ImportReport,
  importHistory,
} from "./import-history.js";
import { SwfReader, type SwfRecord } from "./swf-parser.js";

const KIB = 1024;

/** Options of {@link importSwfFile}. */
export type ImportSwfOptions = Omit<ImportHistoryOptions, "sourceId" | "sourceKind"> & {
  /** Cluster id the jobs are stored under, e.g. `lanl-cm5`. */
  cluster: string;
  /** Scheduler recorded in the job specs. @default "slurm" */
  scheduler?: "slurm" | "kubernetes";
  /** Checkpoint identity. @default from the file's size and first MiB */
  sourceId?: string;
};

// Whole seconds: "2024-01-01T00:00:00Z", as SWF has no fractions.
const iso = (unixSeconds: number) => `${new Date(unixSeconds * 1000).toISOString().slice(0, 19)}Z`;
const positive = (v: number) => (v > 0 ? v : undefined);

function swfState(r: SwfRecord): JobState {
  if (r.status === 1) return "COMPLETED";
  if (r.status === 5) return "CANCELLED";
  // A failed job that ran to its limit was stopped by it.
  if (r.requestedTime > 0 && r.runTime >= r.requestedTime) return "TIMEOUT";
  return "FAILED";
}

/**
 * Maps one SWF job to a {@link JobRecord}. SWF memory is per processor (KB): the job's is that
 * times the processors (used × allocated, requested × requested); -1 means unknown.
 *
 * @example
 * ```ts
 * const record = swfRecordToJobRecord(r, reader.header.unixStartTime, "lanl-cm5");
 * ```
 */
export function swfRecordToJobRecord(
  r: SwfRecord,
  unixStartTime: number,
  cluster: string,
  scheduler: "slurm" | "kubernetes" = "slurm",
): JobRecord {
  const submit = unixStartTime + r.submitTime;
  const start = r.waitTime >= 0 ? submit + r.waitTime : undefined;
  const end = start !== undefined && r.runTime >= 0 ? start + r.runTime : undefined;
  const allocated = positive(r.allocatedProcessors);
  const requestedCores = positive(r.requestedProcessors) ?? allocated;
  const usedKb = positive(r.usedMemoryKb);
  const requestedKb = positive(r.requestedMemoryKb);
  const cpuTime = r.averageCpuTime >= 0 && allocated !== undefined ? r.averageCpuTime * allocated : undefined;
  const partition =
    r.partitionNumber >= 0 ? r.partitionNumber : r.queueNumber >= 0 ? r.queueNumber : undefined;
  const state = swfState(r);
  const spec: JobRecord["spec"] = {
    cluster,
    scheduler,
    user: r.userId >= 0 ? String(r.userId) : "unknown",
    requested: {},
    submitTime: iso(submit),
  };
  // Fields are set only when known (no `undefined` keys): faster than deleting them afterwards,
  // which matters at a hundred thousand jobs per log.
  if (r.groupId >= 0) spec.account = String(r.groupId);
  if (partition !== undefined) spec.partition = String(partition);
  if (r.partitionNumber >= 0 && r.queueNumber >= 0) spec.qos = String(r.queueNumber);
  if (r.executableId >= 0) spec.executable = String(r.executableId);
  if (requestedCores !== undefined) spec.requested.cores = requestedCores;
  if (r.requestedTime > 0) spec.requested.walltimeSeconds = r.requestedTime;
  if (requestedKb && requestedCores)
    spec.requested.memoryBytes = Math.round(requestedKb * requestedCores * KIB);
  const record: JobRecord = {
    cluster,
    jobId: String(r.jobNumber),
    phase: "ended",
    source: "swf-import",
    spec,
    submittedAt: spec.submitTime!,
    outcome: state === "FAILED" && r.status !== 0 ? { state, reason: `SWF status ${r.status}` } : { state },
  };
  if (start !== undefined) record.startedAt = iso(start);
  if (end !== undefined) record.endedAt = iso(end);
  if (allocated !== undefined) record.allocated = { cores: allocated };
  const peaks: NonNullable<JobRecord["peaks"]> = {};
  if (usedKb && allocated) peaks.memoryBytes = Math.round(usedKb * allocated * KIB);
  if (r.runTime >= 0) peaks.runTimeSeconds = r.runTime;
  if (cpuTime !== undefined) peaks.cpuTimeSeconds = cpuTime;
  if (cpuTime !== undefined && r.runTime > 0) peaks.coresUsed = cpuTime / r.runTime;
  if (Object.keys(peaks).length > 0) record.peaks = peaks;
  return record;
}

/**
 * Import items of an SWF log read by the streaming {@link SwfReader}: each job with its line, and
 * every line the reader could not parse with its line number and reason.
 */
export async function* swfItems(
  reader: SwfReader,
  cluster: string,
  scheduler: "slurm" | "kubernetes" = "slurm",
): AsyncGenerator<ImportItem> {
  for await (const r of reader) {
    // The reader keeps its bad lines in a list; hand them on (and let go of them) as they come.
    for (const bad of reader.badLines.splice(0)) yield { line: bad.line, error: bad.reason };
    yield { line: r.line, record: swfRecordToJobRecord(r, reader.header.unixStartTime, cluster, scheduler) };
  }
  for (const bad of reader.badLines.splice(0)) yield { line: bad.line, error: bad.reason };
}

/**
 * Imports a Standard Workload Format log (plain or gzip): streaming, resumable, idempotent.
 *
 * @example
 * ```ts
 * const report = await importSwfFile("LANL-CM5-1994-4.1-cln.swf.gz", { storage, cluster: "lanl-cm5" });
 * ```
 */
export async function importSwfFile(path: string, options: ImportSwfOptions): Promise<ImportReport> {
  const sourceId = options.sourceId ?? (await fileSourceId(path, "swf", options.cluster));
  const reader = SwfReader.fromFile(path, { maxBadLineDetails: Number.MAX_SAFE_INTEGER });
  return importHistory(swfItems(reader, options.cluster, options.scheduler), {
    ...options,
    sourceId,
    sourceKind: "swf",
  });
}
