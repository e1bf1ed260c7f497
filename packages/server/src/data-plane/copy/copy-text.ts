import type { BufferPool } from "./buffer-pool.js";
import { Utf8Writer } from "./utf8-writer.js";

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
  if (typeof value === "string") return needsEscape(value) ? value.replace(ESCAPES, escapeChar) : value;
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

// On a long text (a JSON document as text), four `includes` are faster than one character class.
function needsEscape(value: string): boolean {
  if (value.length < 64) return NEEDS_ESCAPE.test(value);
  return value.includes("\\") || value.includes("\n") || value.includes("\t") || value.includes("\r");
}

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

/** One row as a line of COPY text, its newline included. */
function copyTextLine(row: readonly CopyValue[]): string {
  let line = "";
  for (let i = 0; i < row.length; i++) line += i === 0 ? copyTextField(row[i]) : `\t${copyTextField(row[i])}`;
  return `${line}\n`;
}

/** Rows as COPY text, in chunks of about 64 KiB. */
export function* copyTextChunks(rows: Iterable<readonly CopyValue[]>): Generator<string> {
  let chunk = "";
  for (const row of rows) {
    chunk += copyTextLine(row);
    if (chunk.length >= CHUNK_BYTES) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk) yield chunk;
}

/**
 * Rows as one buffer of COPY text, for a caller that encodes in one place (a worker thread) and
 * copies in another (`copyBuffer`). Each row is written into the buffer as it is made: building
 * one long string first would cost a flattening and a second pass to encode it. The buffer may be
 * transferred to another thread. With a `pool`, the buffer is taken from it (and is the caller's
 * to give back once sent).
 *
 * @example
 * ```ts
 * const text = copyTextBuffer([[1, "a"], [2, null]]); // "1\ta\n2\t\\N\n"
 * ```
 */
export function copyTextBuffer(rows: readonly (readonly CopyValue[])[], pool?: BufferPool): Buffer {
  // Sized for rows of about 1 KiB (a usage sample's), grown when they are longer; no larger for
  // one row, whose write would pay more to allocate the buffer than to fill it.
  const out = new Utf8Writer(Math.max(1024, rows.length * 1024), pool);
  copyTextInto(out, rows);
  return out.bytes();
}

/**
 * Appends rows as COPY text to a writer that holds other rows already: for a caller that keeps
 * one buffer for many small writes rather than allocating one each time.
 *
 * @example
 * ```ts
 * const out = new Utf8Writer(64 * 1024);
 * copyTextInto(out, [[1, "a"]]);
 * copyTextInto(out, [[2, null]]); // out.bytes(): "1\ta\n2\t\\N\n"
 * ```
 */
export function copyTextInto(out: Utf8Writer, rows: readonly (readonly CopyValue[])[]): void {
  for (const row of rows) out.write(copyTextLine(row));
}
