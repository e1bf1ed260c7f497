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
  if (typeof value === "string") return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPES, escapeChar) : value;
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "\\N";
  if (typeof value === "boolean") return value ? "t" : "f";
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString();
  // JSON text never holds a raw newline, carriage return or tab (JSON.stringify escapes them):
  // only its backslashes need doubling, and most documents have none.
  const json = JSON.stringify(value);
  return json.includes("\\") ? json.replaceAll("\\", "\\\\") : json;
}

const NEEDS_ESCAPE = /[\\\n\r\t]/;
const ESCAPES = /[\\\n\r\t]/g;

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
