import { createHash } from "node:crypto";
import { open, stat } from "node:fs/promises";
import { type JobRecord, validators } from "@jobsight/schemas";
import { withTransaction } from "../storage/database.js";
import type { DataPlaneStorage } from "../storage/storage.js";
import {
  type ImportCheckpoint,
  readImportCheckpoint,
  writeImportCheckpoint,
} from "../stores/import-checkpoints.js";
import { upsertJobRecordsIn } from "../stores/job-store.js";

/** One job (or one unreadable line) of a history source, with its line (or record) number. */
export type ImportItem = { line: number; record: JobRecord } | { line: number; error: string };

/** A line that was not imported, and why. */
export type BadLine = { line: number; reason: string };

/** Counts so far; sent to `onProgress` after every committed batch. */
export type ImportProgress = {
  /** Last line (or record number) committed. */
  line: number;
  /** Jobs stored (new or updated), including earlier runs of a resumed import. */
  imported: number;
  /** Jobs already stored as they are (a second import of the same file). */
  duplicates: number;
  /** Lines that could not be imported. */
  badLines: number;
  /** Jobs skipped because an earlier, interrupted run had committed them. */
  skipped: number;
};

/** What an import did. */
export type ImportReport = ImportProgress & {
  sourceId: string;
  /** Line the import resumed after (0 for a fresh start). */
  resumedFrom: number;
  /** The first bad lines, with reasons (all are counted in `badLines`). */
  badLineDetails: BadLine[];
  elapsedMs: number;
};

/** Options of {@link importHistory}. */
export type ImportHistoryOptions = {
  storage: DataPlaneStorage;
  /** Identity of the source for the checkpoint, e.g. from {@link fileSourceId}. */
  sourceId: string;
  /** `swf`, `sacct-json`, `sacct-parsable`. */
  sourceKind: string;
  /** Jobs per transaction. @default 5000 */
  batchSize?: number;
  /** Ignore the checkpoint and start from the first line (rows already stored count as duplicates). @default false */
  restart?: boolean;
  /** Bad lines whose details are kept. @default 100 */
  maxBadLineDetails?: number;
  /** Called after each committed batch. @default undefined */
  onProgress?: (progress: ImportProgress) => void;
  /** Stops the import after the current batch commits. @default undefined */
  signal?: AbortSignal;
};

/**
 * Imports a stream of history jobs: validated against the JobRecord schema, stored in batches
 * (COPY + upsert) with the checkpoint committed in the same transaction, so an interrupted import
 * resumes after the last committed line and a repeated import stores nothing twice.
 *
 * @example
 * ```ts
 * const report = await importHistory(items, { storage, sourceId, sourceKind: "swf", onProgress: console.log });
 * ```
 */
export async function importHistory(
  items: AsyncIterable<ImportItem>,
  options: ImportHistoryOptions,
): Promise<ImportReport> {
  const started = Date.now();
  const { storage, sourceId, sourceKind } = options;
  const batchSize = options.batchSize ?? 5000;
  const maxDetails = options.maxBadLineDetails ?? 100;
  const previous = options.restart ? undefined : await readImportCheckpoint(storage.pool, sourceId);
  const resumedFrom = previous?.lastLine ?? 0;
  const state: ImportCheckpoint = {
    sourceId,
    sourceKind,
    lastLine: resumedFrom,
    imported: previous?.imported ?? 0,
    duplicates: previous?.duplicates ?? 0,
    badLines: previous?.badLines ?? 0,
    completed: false,
  };
  let skipped = 0;
  const details: BadLine[] = [];
  let batch: JobRecord[] = [];
  let pendingBad = 0;
  let seenLine = resumedFrom;
  let inFlight: Promise<void> | undefined;

  // One batch commits while the next is being read: parsing and PostgreSQL work in parallel, and
  // the checkpoint still only ever moves to a line whose jobs are all committed.
  const flush = async (records: JobRecord[], lastLine: number, bad: number, completed: boolean) => {
    const next: ImportCheckpoint = { ...state, lastLine, badLines: state.badLines + bad, completed };
    await withTransaction(storage.pool, async (client) => {
      const r = await upsertJobRecordsIn(client, records);
      next.imported += r.accepted;
      next.duplicates += r.duplicates;
      await writeImportCheckpoint(client, next);
    });
    Object.assign(state, next);
    options.onProgress?.(progress());
  };
  const startFlush = async (completed: boolean) => {
    const args = [batch, seenLine, pendingBad] as const;
    batch = [];
    pendingBad = 0;
    await inFlight;
    inFlight = flush(...args, completed);
    // Awaited later; this handler only keeps an early failure from counting as unhandled.
    inFlight.catch(() => {});
  };
  const progress = (): ImportProgress => ({
    line: state.lastLine,
    imported: state.imported,
    duplicates: state.duplicates,
    badLines: state.badLines + pendingBad,
    skipped,
  });

  for await (const item of items) {
    if (item.line <= resumedFrom) {
      if ("record" in item) skipped++;
      continue;
    }
    seenLine = Math.max(seenLine, item.line);
    if ("error" in item) {
      pendingBad++;
      if (details.length < maxDetails) details.push({ line: item.line, reason: item.error });
      continue;
    }
    const checked = validators.JobRecord.validate(item.record);
    if (!checked.ok) {
      pendingBad++;
      const reason = checked.errors
        .slice(0, 3)
        .map((e) => `${e.path || "/"}: ${e.message}`)
        .join("; ");
      if (details.length < maxDetails) details.push({ line: item.line, reason });
      continue;
    }
    batch.push(item.record);
    if (batch.length >= batchSize) {
      await inFlight;
      if (options.signal?.aborted) break;
      await startFlush(false);
    }
  }
  await inFlight;
  if (!options.signal?.aborted) {
    await startFlush(true);
    await inFlight;
  }
  return { ...progress(), sourceId, resumedFrom, badLineDetails: details, elapsedMs: Date.now() - started };
}

/**
 * A stable identity of a file for checkpoints: its kind, cluster, size and the sha256 of its first
 * MiB (so a renamed copy resumes, a different file does not).
 *
 * @example
 * ```ts
 * const sourceId = await fileSourceId("/data/LANL-CM5-1994-4.1-cln.swf.gz", "swf", "lanl-cm5");
 * ```
 */
export async function fileSourceId(path: string, kind: string, cluster: string | undefined): Promise<string> {
  const { size } = await stat(path);
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(Math.min(size, 1024 * 1024));
    await handle.read(head, 0, head.length, 0);
    const digest = createHash("sha256").update(head).digest("hex").slice(0, 32);
    return `${kind}:${cluster ?? "-"}:${size}:${digest}`;
  } finally {
    await handle.close();
  }
}
