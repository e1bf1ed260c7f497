import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

/** A value COPY can carry: objects and arrays are written as JSON (for jsonb columns). */
export type CopyValue = string | number | boolean | bigint | Date | null | undefined | object;

const CHUNK_BYTES = 64 * 1024;

/**
 * Encodes one field in PostgreSQL's COPY text format: `\N` for null, backslash escapes for the
 * characters that delimit fields and rows.
 *
 * @example
 * ```ts
 * copyTextField("a\tb"); // "a\\tb"
 * copyTextField(null);   // "\\N"
 * ```
 */
export function copyTextField(value: CopyValue): string {
  if (value === null || value === undefined) return "\\N";
  let text: string;
  if (typeof value === "string") text = value;
  else if (typeof value === "number") {
    if (!Number.isFinite(value)) return "\\N";
    text = String(value);
  } else if (typeof value === "boolean") return value ? "t" : "f";
  else if (typeof value === "bigint") return value.toString();
  else if (value instanceof Date) return value.toISOString();
  else text = JSON.stringify(value);
  return text.replace(/[\\\n\r\t]/g, escapeChar);
}

function escapeChar(c: string): string {
  switch (c) {
    case "\\":
      return "\\\\";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    default:
      return "\\t";
  }
}

function* encodeRows(rows: Iterable<readonly CopyValue[]>): Generator<string> {
  let chunk = "";
  for (const row of rows) {
    chunk += `${row.map(copyTextField).join("\t")}\n`;
    if (chunk.length >= CHUNK_BYTES) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk) yield chunk;
}

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
  await pipeline(Readable.from(encodeRows(rows), { objectMode: false }), sink);
}
