/** An identifier (or timestamp) that cannot be quoted safely (empty, NUL, too long, invalid date). */
export class SqlIdentifierError extends Error {
  readonly code = "SQL_IDENTIFIER_INVALID";
  constructor(message: string) {
    super(message);
    this.name = "SqlIdentifierError";
  }
}

// PostgreSQL truncates identifiers to NAMEDATALEN - 1 = 63 bytes; two long names could then
// silently become the same one.
const MAX_IDENTIFIER_BYTES = 63;

/**
 * Quotes a PostgreSQL identifier (table, column, schema, partition name) for the places where SQL
 * takes no parameters (DDL, `COPY`, dynamic table names): wraps it in double quotes and doubles
 * any double quote inside, so whatever the name holds it stays one identifier. Values never go
 * through here; they go in as `$1` parameters. This is the one interpolation `sql-guard.test.ts`
 * accepts in SQL text besides constants and `$n` placeholders.
 *
 * @throws {SqlIdentifierError} for an empty name, a NUL byte, or more than 63 bytes.
 * @example
 * ```ts
 * await pool.query(`DROP TABLE IF EXISTS ${sqlIdentifier(partition)}`); // DROP TABLE IF EXISTS "usage_samples_20260101"
 * ```
 */
export function sqlIdentifier(name: string): string {
  if (typeof name !== "string" || name.length === 0)
    throw new SqlIdentifierError("An SQL identifier cannot be empty");
  if (name.includes("\u0000")) throw new SqlIdentifierError("An SQL identifier cannot contain NUL");
  if (Buffer.byteLength(name, "utf8") > MAX_IDENTIFIER_BYTES) {
    throw new SqlIdentifierError(
      `SQL identifier ${name.slice(0, 20)}… is longer than ${MAX_IDENTIFIER_BYTES} bytes`,
    );
  }
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Quotes a schema-qualified name part by part, e.g. `"public"."jobs"`.
 *
 * @example
 * ```ts
 * sqlQualifiedIdentifier("jobsight", "api_tokens"); // "jobsight"."api_tokens"
 * ```
 */
export function sqlQualifiedIdentifier(...parts: string[]): string {
  if (parts.length === 0) throw new SqlIdentifierError("A qualified identifier needs at least one part");
  return parts.map(sqlIdentifier).join(".");
}

/**
 * Quotes a list of identifiers for a column list, e.g. `"a", "b"`.
 *
 * @example
 * ```ts
 * `COPY ${sqlIdentifier(table)} (${sqlIdentifiers(columns)}) FROM STDIN`
 * ```
 */
export function sqlIdentifiers(names: readonly string[]): string {
  return names.map(sqlIdentifier).join(", ");
}

/**
 * A timestamp as an SQL literal, for DDL that takes no parameters (partition bounds). Only a
 * `Date` goes in, so only digits, dashes, colons and a dot come out.
 *
 * @throws {SqlIdentifierError} for an invalid date.
 * @example
 * ```ts
 * `FOR VALUES FROM (${sqlTimestampLiteral(from)}) TO (${sqlTimestampLiteral(to)})` // ('2026-01-01T00:00:00.000Z')
 * ```
 */
export function sqlTimestampLiteral(date: Date): string {
  if (!(date instanceof Date) || Number.isNaN(date.getTime()))
    throw new SqlIdentifierError("Not a valid date");
  return `'${date.toISOString()}'`;
}
