// SQLSTATE classes and codes after which the same request can succeed later: the connection went
// away, the server is starting or shutting down, or it ran out of a resource for a moment.
const TRANSIENT_SQLSTATE_PREFIXES = ["08", "53", "57P"];
const TRANSIENT_SQLSTATES = new Set(["40001", "40P01", "55P03", "57014"]);
const TRANSIENT_NODE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
]);
// node-postgres reports some connection losses without a code, only with these messages.
const TRANSIENT_MESSAGES = [
  "Connection terminated",
  "timeout exceeded when trying to connect",
  "Client has encountered a connection error",
  "Client was closed and is not queryable",
  "terminating connection",
  "the database system is",
];

/**
 * Whether a PostgreSQL / node-postgres error is worth a retry (storage unavailable) rather than a
 * bug or a bad request.
 *
 * @example
 * ```ts
 * if (isTransientPgError(error)) throw new StorageUnavailableError("PostgreSQL is unreachable", error);
 * ```
 */
export function isTransientPgError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (TRANSIENT_NODE_CODES.has(code) || TRANSIENT_SQLSTATES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && TRANSIENT_SQLSTATE_PREFIXES.some((p) => code.startsWith(p)))
      return true;
  }
  if (error instanceof AggregateError) return error.errors.some(isTransientPgError);
  return TRANSIENT_MESSAGES.some((m) => error.message.includes(m));
}

/**
 * Whether a statement failed because a row with the same unique key is there already (SQLSTATE
 * 23505): for writes that take a fast path and redo the work another way when it meets one.
 *
 * @example
 * ```ts
 * try { await copyStraight(); } catch (error) { if (!isUniqueViolation(error)) throw error; await mergeInstead(); }
 * ```
 */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === "23505";
}
