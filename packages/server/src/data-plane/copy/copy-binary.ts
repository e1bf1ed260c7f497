import type pg from "pg";
import { sqlIdentifier, sqlIdentifiers } from "../storage/sql-identifier.js";
import { copyParts } from "./copy-rows.js";
import type { Utf8Writer } from "./utf8-writer.js";

// PostgreSQL's binary COPY format (https://www.postgresql.org/docs/current/sql-copy.html):
// a signature, flags and header extension length, then per row a 16-bit field count and per
// field a 32-bit length (-1 for NULL) and that many bytes, then a field count of -1.
const HEADER = Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)]);
const TRAILER = Buffer.from([0xff, 0xff]);

/** Milliseconds from the Unix epoch to PostgreSQL's (2000-01-01T00:00:00Z). */
const PG_EPOCH_MS = 946_684_800_000;

/** Starts a row of `fields` fields. */
export function copyBinaryRow(out: Utf8Writer, fields: number): void {
  out.writeInt16(fields);
}

/** A `text` field: its UTF-8 bytes, or NULL. */
export function copyBinaryText(out: Utf8Writer, value: string | null | undefined): void {
  if (value === null || value === undefined) {
    out.writeInt32(-1);
    return;
  }
  const at = out.length;
  out.writeInt32(0);
  out.setInt32(at, out.write(value));
}

/**
 * A `timestamptz` field from an ISO 8601 time (microseconds since 2000-01-01 UTC, to the
 * millisecond JavaScript reads); NULL when absent or not a time.
 */
export function copyBinaryTimestamp(out: Utf8Writer, iso: string | null | undefined): void {
  const ms = iso === null || iso === undefined ? Number.NaN : Date.parse(iso);
  if (Number.isFinite(ms)) {
    out.writeInt32(8);
    out.writeInt64(BigInt(ms - PG_EPOCH_MS) * 1000n);
  } else out.writeInt32(-1);
}

/**
 * Copies rows already encoded in the binary format (one buffer or several, whole rows each)
 * into `table`; the header and trailer are added here. The binary format spares PostgreSQL
 * finding the end of each line and unescaping each field, most of its work for long text rows.
 *
 * @example
 * ```ts
 * const out = new Utf8Writer(64);
 * copyBinaryRow(out, 2);
 * copyBinaryText(out, "a");
 * copyBinaryTimestamp(out, new Date().toISOString());
 * await copyBinary(client, "t", ["name", "at"], out.bytes());
 * ```
 */
export async function copyBinary(
  client: pg.PoolClient | pg.Client,
  table: string,
  columns: readonly string[],
  rows: Uint8Array | readonly Uint8Array[],
): Promise<void> {
  const sql = `COPY ${sqlIdentifier(table)} (${sqlIdentifiers(columns)}) FROM STDIN WITH (FORMAT binary)`;
  const parts = rows instanceof Uint8Array ? [rows] : rows;
  await copyParts(client, sql, [HEADER, ...parts, TRAILER]);
}
