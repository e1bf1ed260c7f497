import type pg from "pg";
import { query } from "../storage/database.js";

/** How far an import of one source got; committed together with the rows it counts. */
export type ImportCheckpoint = {
  sourceId: string;
  sourceKind: string;
  /** Last line (or record number) whose job is committed. */
  lastLine: number;
  imported: number;
  duplicates: number;
  badLines: number;
  completed: boolean;
};

/** Reads the checkpoint of a source, or `undefined` when it was never imported. */
export async function readImportCheckpoint(
  pool: pg.Pool,
  sourceId: string,
): Promise<ImportCheckpoint | undefined> {
  const { rows } = await query<Record<string, unknown>>(
    pool,
    `SELECT source_id, source_kind, last_line, imported, duplicates, bad_lines, completed
     FROM import_checkpoints WHERE source_id = $1`,
    [sourceId],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    sourceId: String(r.source_id),
    sourceKind: String(r.source_kind),
    lastLine: Number(r.last_line),
    imported: Number(r.imported),
    duplicates: Number(r.duplicates),
    badLines: Number(r.bad_lines),
    completed: Boolean(r.completed),
  };
}

/** Writes a checkpoint inside the caller's transaction (the one that stored the rows). */
export async function writeImportCheckpoint(client: pg.PoolClient, c: ImportCheckpoint): Promise<void> {
  await client.query(
    `INSERT INTO import_checkpoints (source_id, source_kind, last_line, imported, duplicates, bad_lines, completed, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now())
     ON CONFLICT (source_id) DO UPDATE SET source_kind = excluded.source_kind, last_line = excluded.last_line,
       imported = excluded.imported, duplicates = excluded.duplicates, bad_lines = excluded.bad_lines,
       completed = excluded.completed, updated_at = now()`,
    [c.sourceId, c.sourceKind, c.lastLine, c.imported, c.duplicates, c.badLines, c.completed],
  );
}

/** Forgets a source's checkpoint so that the next import starts from the first line. */
export async function resetImportCheckpoint(pool: pg.Pool, sourceId: string): Promise<void> {
  await query(pool, "DELETE FROM import_checkpoints WHERE source_id = $1", [sourceId]);
}
