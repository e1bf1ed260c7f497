import type { ApiError, FieldError } from "@jobsight/schemas";

/**
 * Every error code the server answers with, its HTTP status and what it means. The single source
 * for the error classes below, the error handler and the documentation.
 */
export const errorCatalogue = {
  VALIDATION_FAILED: { status: 400, description: "The request is invalid; every offending field is listed." },
  MALFORMED_BODY: { status: 400, description: "The body could not be parsed (not JSON, truncated, empty)." },
  INVALID_CURSOR: { status: 400, description: "The pagination cursor is not one this server issued." },
  UNAUTHENTICATED: { status: 401, description: "No valid bearer token." },
  FORBIDDEN: { status: 403, description: "The token's role, user or cluster may not do this." },
  NOT_FOUND: { status: 404, description: "No such route, job or artifact (or not visible to this token)." },
  METHOD_NOT_ALLOWED: { status: 405, description: "The route exists, but not with this method." },
  UNKNOWN_CLUSTER: {
    status: 404,
    description: "No cluster with this id is registered (a cluster to remove, or one a new token names).",
  },
  JOB_AMBIGUOUS: { status: 409, description: "The job id exists on several clusters; name the cluster." },
  CLUSTER_HAS_JOBS: {
    status: 409,
    description: "The cluster has recorded jobs; remove it with force=true (its history is kept).",
  },
  NO_EARLIER_MODEL: { status: 409, description: "There is no earlier model to roll back to." },
  MODEL_NOT_SERVABLE: {
    status: 409,
    description:
      "The model's files are missing or were trained on other features than this server computes; nothing was changed.",
  },
  PAYLOAD_TOO_LARGE: { status: 413, description: "The body exceeds the size limit." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: "The content type is not accepted by this route." },
  RATE_LIMITED: {
    status: 429,
    description: "Too many requests or too much work in flight; retry after Retry-After.",
  },
  INTERNAL_ERROR: { status: 500, description: "An unexpected error; the server logged it." },
  NOT_IMPLEMENTED: { status: 501, description: "The route is part of the API but not served by this build." },
  STORAGE_UNAVAILABLE: {
    status: 503,
    description: "PostgreSQL or object storage is unreachable; retryable.",
  },
} as const satisfies Record<string, { status: number; description: string }>;

/** A stable error code of the REST API. */
export type ErrorCode = keyof typeof errorCatalogue;

/** Extra details of a {@link JobsightError}. */
export type JobsightErrorOptions = {
  /** Offending fields (validation errors). */
  errors?: FieldError[];
  /** For retryable errors: seconds until a retry makes sense; sent as `Retry-After`. */
  retryAfterSeconds?: number;
  /** The underlying error, for logs; never sent to the client. */
  cause?: unknown;
};

/**
 * Base of every error the server turns into an {@link ApiError} answer: a stable `code` from the
 * {@link errorCatalogue} and the HTTP status that goes with it.
 *
 * @example
 * ```ts
 * throw new NotFoundError("job 42 not found");
 * ```
 */
export class JobsightError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly errors?: FieldError[];
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, options: JobsightErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.statusCode = errorCatalogue[code].status;
    if (options.errors) this.errors = options.errors;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The wire form of this error. */
  toApiError(): ApiError {
    const body: ApiError = { code: this.code, message: this.message, statusCode: this.statusCode };
    if (this.errors) body.errors = this.errors;
    if (this.retryAfterSeconds !== undefined) body.retryAfterSeconds = this.retryAfterSeconds;
    return body;
  }
}

/** 400: the request breaks the schema; `errors` names every offending field. */
export class ValidationError extends JobsightError {
  constructor(errors: FieldError[], message = describeFieldErrors(errors)) {
    super("VALIDATION_FAILED", message, { errors });
  }
}

/** 400: the body is not parseable. */
export class MalformedBodyError extends JobsightError {
  constructor(message: string, cause?: unknown) {
    super("MALFORMED_BODY", message, { cause });
  }
}

/** 400: a pagination cursor this server did not issue. */
export class InvalidCursorError extends JobsightError {
  constructor(message = "The cursor is not valid; start again without one") {
    super("INVALID_CURSOR", message, { errors: [{ path: "/query/cursor", message }] });
  }
}

/** 401: no token, or a token no verifier accepts. */
export class UnauthenticatedError extends JobsightError {
  constructor(message = "A valid bearer token is required") {
    super("UNAUTHENTICATED", message);
  }
}

/** 403: authenticated, but not allowed. */
export class ForbiddenError extends JobsightError {
  constructor(message: string, errors?: FieldError[]) {
    super("FORBIDDEN", message, { errors });
  }
}

/** 404: nothing there, or nothing this token may see (the two are not told apart). */
export class NotFoundError extends JobsightError {
  constructor(message: string) {
    super("NOT_FOUND", message);
  }
}

/** 409: a job id found on several clusters without a `cluster` to choose. */
export class JobAmbiguousError extends JobsightError {
  constructor(jobId: string, clusters: string[]) {
    const message = `Job ${jobId} exists on clusters ${clusters.join(", ")}; add ?cluster=`;
    super("JOB_AMBIGUOUS", message, { errors: [{ path: "/query/cluster", message }] });
  }
}

/**
 * 404: the cluster a request names is not registered; `errors` names the field. With the list of
 * registered clusters, the message names them.
 */
export class UnknownClusterError extends JobsightError {
  readonly cluster: string;
  constructor(cluster: string, path: string, registered?: readonly string[]) {
    const listed =
      registered === undefined
        ? ""
        : registered.length > 0
          ? ` (registered: ${registered.join(", ")})`
          : " (none is registered)";
    const detail = `${cluster} is not a registered cluster${listed}; register it with POST /v1/clusters first`;
    super("UNKNOWN_CLUSTER", `${path}: ${detail}`, { errors: [{ path, message: detail }] });
    this.cluster = cluster;
  }
}

/** 409: removing a cluster that has recorded jobs, without `force`. */
export class ClusterHasJobsError extends JobsightError {
  constructor(cluster: string, jobs: number) {
    super(
      "CLUSTER_HAS_JOBS",
      `Cluster ${cluster} has ${jobs} recorded jobs; removing it refuses its collectors and revokes its tokens (the jobs are kept): pass force=true`,
      { errors: [{ path: "/query/force", message: "must be true to remove a cluster with recorded jobs" }] },
    );
  }
}

/** 409: a rollback with no earlier model to go back to. */
export class NoEarlierModelError extends JobsightError {
  constructor(active: string | undefined) {
    super(
      "NO_EARLIER_MODEL",
      active ? `No model was in service before ${active}` : "No model is in service, and none was before",
    );
  }
}

/** 409: a model version that this server cannot load; the model in service is unchanged. */
export class ModelNotServableError extends JobsightError {
  constructor(version: string, reason: string, cause?: unknown) {
    super("MODEL_NOT_SERVABLE", `Model ${version} cannot be served: ${reason}`, { cause });
  }
}

/** 413: body over the limit. */
export class PayloadTooLargeError extends JobsightError {
  constructor(limitBytes: number) {
    super("PAYLOAD_TOO_LARGE", `The body exceeds the limit of ${limitBytes} bytes`);
  }
}

/** 415: wrong content type. */
export class UnsupportedMediaTypeError extends JobsightError {
  constructor(contentType: string | undefined) {
    super("UNSUPPORTED_MEDIA_TYPE", `Content type ${contentType ?? "(none)"} is not accepted here`);
  }
}

/** 429: slow down; `retryAfterSeconds` says for how long. */
export class RateLimitedError extends JobsightError {
  constructor(retryAfterSeconds: number, message = "Too many requests") {
    super("RATE_LIMITED", message, { retryAfterSeconds });
  }
}

/** 501: a route of the API table this build does not serve yet. */
export class NotImplementedError extends JobsightError {
  constructor(operationId: string) {
    super("NOT_IMPLEMENTED", `${operationId} is not implemented by this server`);
  }
}

/** 503: storage unreachable; the client should retry. */
export class StorageUnavailableError extends JobsightError {
  constructor(message: string, cause?: unknown, retryAfterSeconds = 2) {
    super("STORAGE_UNAVAILABLE", message, { cause, retryAfterSeconds });
  }
}

/** 500: anything unexpected. The message sent is generic; the cause goes to the log. */
export class InternalError extends JobsightError {
  constructor(cause?: unknown) {
    super("INTERNAL_ERROR", "Internal server error", { cause });
  }
}

/** "2 fields are invalid: /a, /b" — a one-line summary for people. */
export function describeFieldErrors(errors: FieldError[]): string {
  const paths = errors.map((e) => e.path || "/").slice(0, 5);
  const more = errors.length > paths.length ? ", …" : "";
  const noun = errors.length === 1 ? "field is" : "fields are";
  return `${errors.length} ${noun} invalid: ${paths.join(", ")}${more}`;
}
