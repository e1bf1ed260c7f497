import type { FastifyError } from "fastify";
import { isTransientPgError } from "./data-plane/storage/pg-errors.js";
import {
  type ErrorCode,
  errorCatalogue,
  InternalError,
  JobsightError,
  MalformedBodyError,
  StorageUnavailableError,
  UnsupportedMediaTypeError,
} from "./errors.js";

// Fastify's own errors that carry a client mistake, mapped to our stable codes.
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "MALFORMED_BODY",
  FST_ERR_CTP_EMPTY_JSON_BODY: "MALFORMED_BODY",
  FST_ERR_CTP_INVALID_JSON_BODY: "MALFORMED_BODY",
  FST_ERR_BAD_URL: "NOT_FOUND",
  // A path parameter longer than any id we accept cannot name anything.
  FST_ERR_MAX_PARAM_LENGTH: "NOT_FOUND",
};

const UNSTORABLE_TEXT_SQLSTATES = new Set(["22021", "22P05"]);

const STATUS_CODES: Record<number, ErrorCode> = {
  400: "MALFORMED_BODY",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMITED",
};

/** What {@link toJobsightError} may name in its messages. */
export type ErrorContext = { bodyLimitBytes?: number; contentType?: string };

/**
 * Turns anything thrown while serving a request into a {@link JobsightError}: ours as they are,
 * fastify's client errors by their code, transient PostgreSQL failures as 503, the rest as 500.
 *
 * @example
 * ```ts
 * const apiError = toJobsightError(new Error("boom")).toApiError(); // { code: "INTERNAL_ERROR", … }
 * ```
 */
export function toJobsightError(error: unknown, context: ErrorContext = {}): JobsightError {
  const bodyLimitBytes = context.bodyLimitBytes ?? 16 * 1024 * 1024;
  if (error instanceof JobsightError) return error;
  if (isTransientPgError(error))
    return new StorageUnavailableError("Storage is temporarily unavailable", error);
  // A value PostgreSQL cannot store as text (NUL, an invalid encoding) is the client's input.
  if (UNSTORABLE_TEXT_SQLSTATES.has((error as { code?: unknown } | null)?.code as string)) {
    return new MalformedBodyError("A value holds a character that cannot be stored as text", error);
  }
  const fastifyError = error as Partial<FastifyError>;
  const code = (fastifyError.code && FASTIFY_CODES[fastifyError.code]) || undefined;
  const status = fastifyError.statusCode;
  const mapped =
    code ?? (status !== undefined && status >= 400 && status < 500 ? STATUS_CODES[status] : undefined);
  if (mapped === "PAYLOAD_TOO_LARGE") {
    return new JobsightError(mapped, `The body exceeds the limit of ${bodyLimitBytes} bytes`, {
      cause: error,
    });
  }
  if (mapped === "UNSUPPORTED_MEDIA_TYPE") return new UnsupportedMediaTypeError(context.contentType);
  if (mapped === "MALFORMED_BODY") {
    return new MalformedBodyError(fastifyError.message ?? "The body could not be parsed", error);
  }
  if (mapped) return new JobsightError(mapped, fastifyError.message ?? errorCatalogue[mapped].description);
  return new InternalError(error);
}
