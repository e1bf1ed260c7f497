import type { JobRecord, NodeEvent } from "@jobsight/schemas";
import { type ObjectStore, readAll } from "../../data-plane/objects/object-store.js";
import { completedRunTimes, jobArtifactRefs } from "../../data-plane/queries/diagnosis-queries.js";
import type { DataPlaneStorage } from "../../data-plane/storage/storage.js";
import { eventDedupeKey } from "../../data-plane/stores/event-store.js";
import type { DiagnosisInput, JobLogLine, RunTimeHistory } from "./input.js";

/** Options of {@link loadDiagnosisInput}. */
export type DiagnosisInputOptions = {
  /**
   * Seconds before the start and after the end in which the events of the job's nodes count.
   * @default 120
   */
  marginSeconds?: number;
  /**
   * Most earlier completed runs read for the run-time history.
   * @default 50
   */
  maxHistory?: number;
  /**
   * Largest submission or log artifact read, in bytes (larger ones are left out).
   * @default 262144
   */
  maxArtifactBytes?: number;
  /**
   * Last lines of the job's log artifacts kept.
   * @default 200
   */
  maxLogLines?: number;
  /** "Now", for a job that has not ended (Unix ms). @default Date.now() */
  now?: number;
};

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Everything a diagnosis of `record` reads, gathered from storage: all its samples, the events
 * of its nodes from `marginSeconds` before its start to as long after its end (and those
 * attributed to it anywhere), the run times of earlier completed runs of the same user and
 * application, its submission and its log excerpts when they were uploaded.
 *
 * @example
 * ```ts
 * const input = await loadDiagnosisInput(storage, objectStore, record);
 * const d = diagnose(input);
 * ```
 */
export async function loadDiagnosisInput(
  storage: DataPlaneStorage,
  objects: ObjectStore,
  record: JobRecord,
  options: DiagnosisInputOptions = {},
): Promise<DiagnosisInput> {
  const margin = (options.marginSeconds ?? 120) * 1000;
  const start = Date.parse(record.startedAt ?? record.submittedAt);
  const end = record.endedAt ? Date.parse(record.endedAt) : (options.now ?? Date.now());
  const [series, own, ...perNode] = await Promise.all([
    storage.samples.series(record.cluster, record.jobId),
    storage.events.forJob(record.cluster, record.jobId),
    ...(record.nodes ?? []).map((node) =>
      storage.events.forNode(record.cluster, node, iso(start - margin), iso(end + margin)),
    ),
  ]);
  const events = new Map<string, NodeEvent>();
  for (const e of [...own, ...perNode.flat()]) events.set(eventDedupeKey(e), e);
  const sorted = [...events.values()].sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  const [history, artifacts] = await Promise.all([
    runTimeHistory(storage, record, options.maxHistory ?? 50),
    jobArtifacts(storage, objects, record, options.maxArtifactBytes ?? 256 * 1024),
  ]);
  const input: DiagnosisInput = { record, samples: series.samples, events: sorted, sourcesSeen: {} };
  const out = input as { -readonly [K in keyof DiagnosisInput]: DiagnosisInput[K] };
  if (history) out.history = history;
  if (artifacts.submission !== undefined) out.submission = artifacts.submission;
  if (artifacts.logLines.length > 0) out.logLines = artifacts.logLines.slice(-(options.maxLogLines ?? 200));
  return input;
}

async function runTimeHistory(
  storage: DataPlaneStorage,
  record: JobRecord,
  limit: number,
): Promise<RunTimeHistory | undefined> {
  const { executable, jobName, user } = record.spec;
  if (executable === undefined && jobName === undefined) return undefined;
  const byExecutable = executable !== undefined;
  const runs = await completedRunTimes(storage.pool, {
    cluster: record.cluster,
    user,
    jobId: record.jobId,
    submittedAt: record.submittedAt,
    key: byExecutable ? { by: "executable", value: executable } : { by: "jobName", value: jobName as string },
    limit,
  });
  if (runs.length === 0) return undefined;
  return {
    runTimesSeconds: runs,
    group: byExecutable ? `user=${user},executable=${executable}` : `user=${user},jobName=${jobName}`,
  };
}

async function jobArtifacts(
  storage: DataPlaneStorage,
  objects: ObjectStore,
  record: JobRecord,
  maxBytes: number,
): Promise<{ submission?: string; logLines: JobLogLine[] }> {
  const refs = await jobArtifactRefs(storage.pool, record.cluster, record.jobId);
  const read = async (sha256: string): Promise<string | undefined> => {
    const stream = await objects.get(sha256);
    if (!stream) return undefined;
    try {
      return (await readAll(stream, maxBytes)).toString("utf8");
    } catch {
      stream.destroy();
      return undefined;
    }
  };
  const logLines: JobLogLine[] = [];
  let submission: string | undefined;
  // The submission is the script the spec names by hash, else the newest linked script or manifest.
  const named = record.spec.scriptHash;
  if (named) submission = await read(named);
  for (const r of refs) {
    if (r.sizeBytes > maxBytes) continue;
    if (r.kind === "log") {
      const text = await read(r.sha256);
      for (const line of text?.split(/\r?\n/) ?? [])
        if (line.length > 0) logLines.push({ source: "job-log", line: line.slice(0, 4096) });
    } else if (!named) {
      submission = (await read(r.sha256)) ?? submission;
    }
  }
  return { submission, logLines };
}
