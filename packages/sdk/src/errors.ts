import type { ApiError, FieldError } from "@jobsight/schemas";

/**
 * Every error the SDK throws, by stable `code`. The codes are part of the public contract: match
 * on `error.code` (or `instanceof`), never on messages.
 */
export const sdkErrorCodes = {
  BAD_REQUEST: "The server refused the request as invalid; `fields` lists every offending field.",
  AUTHENTICATION_FAILED: "The token is missing, expired or not accepted (HTTP 401).",
  PERMISSION_DENIED: "The token is valid but its role may not call this route (HTTP 403).",
  NOT_FOUND: "The job, prediction or route does not exist (HTTP 404).",
  CONFLICT: "The request conflicts with the stored state (HTTP 409).",
  RATE_LIMITED: "Too many requests (HTTP 429); `retryAfterSeconds` says when to try again.",
  HTTP_ERROR: "Any other HTTP error status.",
  SERVER_ERROR: "The server failed (HTTP 5xx).",
  CONNECTION_FAILED: "The server could not be reached (DNS, refused, reset, TLS).",
  TIMEOUT: "No complete answer within `timeoutMs`.",
  RESPONSE_INVALID: "The answer was not JSON or did not match the schema; `rawBody` keeps it.",
} as const;

/** A stable machine-readable SDK error code. */
export type SdkErrorCode = keyof typeof sdkErrorCodes;

/** The base class of every error the SDK throws. */
export class JobsightError extends Error {
  readonly code: SdkErrorCode;
  constructor(code: SdkErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** What an HTTP error answer carried. */
export type HttpErrorDetails = {
  /** The HTTP status. */
  status: number;
  /** The server's own error code (e.g. `VALIDATION_FAILED`), when the body was an `ApiError`. */
  apiCode?: string;
  /** The parsed `ApiError` body, when the body matched the schema. */
  body?: ApiError;
  /** The body as received, always kept (HTML from a proxy, truncated JSON, ...). */
  rawBody: string;
  /** Seconds to wait before retrying, from `Retry-After` or the body. */
  retryAfterSeconds?: number;
  /** `METHOD path` of the request that failed. */
  request: string;
};

/** An HTTP answer with an error status. Subclasses name the common statuses. */
export class HttpStatusError extends JobsightError {
  readonly status: number;
  readonly apiCode?: string;
  readonly body?: ApiError;
  readonly rawBody: string;
  readonly retryAfterSeconds?: number;
  readonly request: string;
  constructor(details: HttpErrorDetails, code: SdkErrorCode = "HTTP_ERROR") {
    const reason = details.body?.message ?? (details.rawBody.slice(0, 200) || "no body");
    super(code, `${details.request} failed with HTTP ${details.status}: ${reason}`);
    this.status = details.status;
    this.apiCode = details.apiCode;
    this.body = details.body;
    this.rawBody = details.rawBody;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.request = details.request;
  }
}

/** HTTP 400/422: the request was refused; `fields` names every offending field. */
export class BadRequestError extends HttpStatusError {
  /** Every offending field as `{ path, message }` (JSON Pointer paths). */
  readonly fields: FieldError[];
  constructor(details: HttpErrorDetails) {
    super(details, "BAD_REQUEST");
    this.fields = details.body?.errors ?? [];
    if (this.fields.length > 0) {
      this.message += ` (${this.fields.map((f) => `${f.path || "/"}: ${f.message}`).join("; ")})`;
    }
  }
}

/** HTTP 401: missing or rejected token. */
export class AuthenticationError extends HttpStatusError {
  constructor(details: HttpErrorDetails) {
    super(details, "AUTHENTICATION_FAILED");
  }
}

/** HTTP 403: the token's role may not call this route. */
export class PermissionError extends HttpStatusError {
  constructor(details: HttpErrorDetails) {
    super(details, "PERMISSION_DENIED");
  }
}

/** HTTP 404: no such job, prediction or route. */
export class NotFoundError extends HttpStatusError {
  constructor(details: HttpErrorDetails) {
    super(details, "NOT_FOUND");
  }
}

/** HTTP 409: conflicts with stored state. */
export class ConflictError extends HttpStatusError {
  constructor(details: HttpErrorDetails) {
    super(details, "CONFLICT");
  }
}

/** HTTP 429: rate limited; see `retryAfterSeconds`. */
export class RateLimitedError extends HttpStatusError {
  constructor(details: HttpErrorDetails) {
    super(details, "RATE_LIMITED");
  }
}

/** HTTP 5xx: the server failed. */
export class ServerError extends HttpStatusError {
  constructor(details: HttpErrorDetails) {
    super(details, "SERVER_ERROR");
  }
}

/** The server could not be reached, or the connection broke before a full answer. */
export class ConnectionError extends JobsightError {
  readonly request: string;
  constructor(request: string, cause: unknown, code: SdkErrorCode = "CONNECTION_FAILED") {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(code, `${request}: could not reach the Jobsight server (${why})`, { cause });
    this.request = request;
  }
}

/** No complete answer within the configured `timeoutMs`. */
export class TimeoutError extends ConnectionError {
  readonly timeoutMs: number;
  constructor(request: string, timeoutMs: number) {
    super(request, new Error(`no answer within ${timeoutMs} ms`), "TIMEOUT");
    this.timeoutMs = timeoutMs;
  }
}

/** A 2xx answer that was not JSON or did not match the route's schema; the raw body is kept. */
export class ResponseValidationError extends JobsightError {
  readonly status: number;
  readonly rawBody: string;
  /** Offending fields when the body was JSON; empty when it was not JSON at all. */
  readonly fields: FieldError[];
  readonly request: string;
  constructor(request: string, status: number, rawBody: string, fields: FieldError[], reason: string) {
    super("RESPONSE_INVALID", `${request}: the answer does not match the API contract (${reason})`);
    this.status = status;
    this.rawBody = rawBody;
    this.fields = fields;
    this.request = request;
  }
}

/** Map an error status to its typed error class. */
export function httpStatusError(details: HttpErrorDetails): HttpStatusError {
  const { status } = details;
  if (status === 400 || status === 422) return new BadRequestError(details);
  if (status === 401) return new AuthenticationError(details);
  if (status === 403) return new PermissionError(details);
  if (status === 404) return new NotFoundError(details);
  if (status === 409) return new ConflictError(details);
  if (status === 429) return new RateLimitedError(details);
  if (status >= 500) return new ServerError(details);
  return new HttpStatusError(details);
}
