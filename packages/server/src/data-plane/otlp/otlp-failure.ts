import { status as GrpcStatus } from "@grpc/grpc-js";
import { OtlpDecodeError } from "@jobsight/otel-bridge";
import type { ErrorCode, JobsightError } from "../../errors.js";
import { type ErrorContext, toJobsightError } from "../../to-jobsight-error.js";
import { ClusterNotRegisteredError } from "./cluster-registry.js";
import type { RpcStatus } from "./rpc-status.js";

/** How one failed export is answered on each transport. */
export type OtlpFailure = {
  /** gRPC status code. */
  grpcCode: GrpcStatus;
  /** OTLP/HTTP status. */
  httpStatus: number;
  /** The `google.rpc.Status` (with `RetryInfo` when a retry is worth it). */
  status: RpcStatus;
  /** An unexpected server error (logged as an error), not the request's fault nor a passing outage. */
  serverFault: boolean;
};

// OTLP clients retry UNAVAILABLE always and RESOURCE_EXHAUSTED only with RetryInfo; every other
// code here is final, which is right for a request that will never succeed as sent.
const GRPC_CODES: Record<ErrorCode, GrpcStatus> = {
  VALIDATION_FAILED: GrpcStatus.INVALID_ARGUMENT,
  MALFORMED_BODY: GrpcStatus.INVALID_ARGUMENT,
  INVALID_CURSOR: GrpcStatus.INVALID_ARGUMENT,
  UNAUTHENTICATED: GrpcStatus.UNAUTHENTICATED,
  FORBIDDEN: GrpcStatus.PERMISSION_DENIED,
  NOT_FOUND: GrpcStatus.NOT_FOUND,
  METHOD_NOT_ALLOWED: GrpcStatus.UNIMPLEMENTED,
  UNKNOWN_CLUSTER: GrpcStatus.NOT_FOUND,
  JOB_AMBIGUOUS: GrpcStatus.FAILED_PRECONDITION,
  CLUSTER_HAS_JOBS: GrpcStatus.FAILED_PRECONDITION,
  NO_EARLIER_MODEL: GrpcStatus.FAILED_PRECONDITION,
  MODEL_NOT_SERVABLE: GrpcStatus.FAILED_PRECONDITION,
  PAYLOAD_TOO_LARGE: GrpcStatus.RESOURCE_EXHAUSTED,
  UNSUPPORTED_MEDIA_TYPE: GrpcStatus.INVALID_ARGUMENT,
  RATE_LIMITED: GrpcStatus.RESOURCE_EXHAUSTED,
  INTERNAL_ERROR: GrpcStatus.INTERNAL,
  NOT_IMPLEMENTED: GrpcStatus.UNIMPLEMENTED,
  STORAGE_UNAVAILABLE: GrpcStatus.UNAVAILABLE,
};

/**
 * Maps anything an export threw to its OTLP answer: a body that does not decode is
 * `INVALID_ARGUMENT` / 400 (415 for a content type that is neither protobuf nor JSON), storage
 * trouble `UNAVAILABLE` / 503 and back-pressure `RESOURCE_EXHAUSTED` / 429, both with a retry
 * delay; auth failures and unregistered clusters are final.
 *
 * @example
 * ```ts
 * const failure = otlpFailure(new StorageUnavailableError("down")); // grpcCode UNAVAILABLE, httpStatus 503
 * ```
 */
export function otlpFailure(error: unknown, context: ErrorContext = {}): OtlpFailure {
  if (error instanceof OtlpDecodeError) {
    const unsupported = error.code === "OTLP_UNSUPPORTED_CONTENT_TYPE";
    return {
      grpcCode: GrpcStatus.INVALID_ARGUMENT,
      httpStatus: unsupported ? 415 : 400,
      status: { code: GrpcStatus.INVALID_ARGUMENT, message: `${error.code}: ${error.message}` },
      serverFault: false,
    };
  }
  const mapped: JobsightError = toJobsightError(error, context);
  const grpcCode =
    mapped instanceof ClusterNotRegisteredError ? GrpcStatus.FAILED_PRECONDITION : GRPC_CODES[mapped.code];
  const status: RpcStatus = { code: grpcCode, message: `${mapped.code}: ${mapped.message}` };
  const retryable = grpcCode === GrpcStatus.UNAVAILABLE || mapped.code === "RATE_LIMITED";
  if (retryable) status.retryAfterSeconds = Math.max(1, Math.ceil(mapped.retryAfterSeconds ?? 1));
  return { grpcCode, httpStatus: mapped.statusCode, status, serverFault: grpcCode === GrpcStatus.INTERNAL };
}
