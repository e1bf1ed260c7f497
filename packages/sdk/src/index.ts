export type { ClientOptions, Health, JobsightClient } from "./client.js";
export { createClient } from "./client.js";
export type { HttpErrorDetails, SdkErrorCode } from "./errors.js";
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  HttpStatusError,
  JobsightError,
  NotFoundError,
  PermissionError,
  RateLimitedError,
  ResponseValidationError,
  ServerError,
  sdkErrorCodes,
  TimeoutError,
} from "./errors.js";
export type { OperationId } from "./http/route-table.js";
export type { RequestOptions, TokenSource } from "./http/transport.js";
export type { AccuracyResource } from "./resources/accuracy.js";
export type { DiagnosesResource, DiagnosisQuery } from "./resources/diagnoses.js";
export type { IngestOptions, JobListQuery, JobsResource } from "./resources/jobs.js";
export type { Page } from "./resources/paged-list.js";
export { PagedList } from "./resources/paged-list.js";
export type { PredictionsResource } from "./resources/predictions.js";
