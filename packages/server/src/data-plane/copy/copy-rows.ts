import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { type CopyValue, copyTextChunks } from "./copy-text.js";

export type { CopyValue } from "./copy-text.js";

/**
 * Streams rows into a table with `COPY … FROM STDIN` on the given client (inside the caller's
 * transaction). `table` and `columns` are trusted identifiers from the data plane's own code.
 *
 * @example
 * ```ts
 * await copyRows(client, "staging", ["id", "doc"], [[1, { a: 1 }], [2, null]]);
 * ```
 */
export async function copyRows(
  client: pg.PoolClient | pg.Client,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly CopyValue[]>,
): Promise<void> {
  const sql = `COPY ${table} (${columns.join(", ")}) FROM STDIN`;
  const sink = client.query(copyFrom(sql));
  await pipeline(Readable.from(copyTextChunks(rows), { objectMode: false }), sink);
}

/**
 * Streams text already in COPY format (from `copyTextBuffer`) into a table, like {@link copyRows}:
 * one buffer, or several sent one after the other (rows never straddle two).
 *
 * @example
 * ```ts
 * await copyBuffer(client, "staging", ["id", "doc"], copyTextBuffer(rows));
 * ```
 */
export async function copyBuffer(
  client: pg.PoolClient | pg.Client,
  table: string,
  columns: readonly string[],
  text: Uint8Array | readonly Uint8Array[],
): Promise<void> {
  const sql = `COPY ${table} (${columns.join(", ")}) FROM STDIN`;
  await copyParts(client, sql, text instanceof Uint8Array ? [text] : text);
}

/**
 * Sends bytes already in the format a `COPY … FROM STDIN` statement reads, one part after the
 * other, on the given client (inside the caller's transaction).
 *
 * @example
 * ```ts
 * await copyParts(client, "COPY t (a) FROM STDIN", [Buffer.from("1\n")]);
 * ```
 */
export async function copyParts(
  client: pg.PoolClient | pg.Client,
  sql: string,
  parts: readonly Uint8Array[],
): Promise<void> {
  const sink = client.query(copyFrom(sql));
  await pipeline(Readable.from(parts, { objectMode: false }), sink);
}
