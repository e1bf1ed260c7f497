import { InvalidCursorError } from "../../errors.js";

/** Where a page of jobs ended: the keyset (submitted time, cluster, job id) of its last row. */
export type JobCursor = {
  /** `submitted_at` with microseconds, UTC, as PostgreSQL printed it. */
  submittedAt: string;
  cluster: string;
  jobId: string;
};

const VERSION = 1;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/**
 * Encodes a keyset position as an opaque, URL-safe cursor.
 *
 * @example
 * ```ts
 * const cursor = encodeJobCursor({ submittedAt: "2026-12-01T10:00:00.000000Z", cluster: "hpc1", jobId: "42" });
 * decodeJobCursor(cursor).jobId; // "42"
 * ```
 */
export function encodeJobCursor(cursor: JobCursor): string {
  return Buffer.from(
    JSON.stringify([VERSION, cursor.submittedAt, cursor.cluster, cursor.jobId]),
    "utf8",
  ).toString("base64url");
}

/**
 * Decodes a cursor made by {@link encodeJobCursor}.
 *
 * @throws {InvalidCursorError} for anything else.
 */
export function decodeJobCursor(text: string): JobCursor {
  let value: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error("not base64url");
    value = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    throw new InvalidCursorError();
  }
  if (
    !Array.isArray(value) ||
    value.length !== 4 ||
    value[0] !== VERSION ||
    typeof value[1] !== "string" ||
    !TIMESTAMP.test(value[1]) ||
    typeof value[2] !== "string" ||
    typeof value[3] !== "string" ||
    value[2] === "" ||
    value[3] === ""
  ) {
    throw new InvalidCursorError();
  }
  return { submittedAt: value[1], cluster: value[2], jobId: value[3] };
}
