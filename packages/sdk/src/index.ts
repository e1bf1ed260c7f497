// Kept on the SDK's surface for its users; one implementation, in @jobsight/schemas.
export type { ResourceName } from "@jobsight/schemas";
export { formatCpuQuantity, formatMemoryQuantity, parseQuantity } from "@jobsight/schemas";
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
export type { AdjustmentReason } from "./predictions/adjustment-reasons.js";
export { adjustmentReasons } from "./predictions/adjustment-reasons.js";
export type { AccuracyResource } from "./resources/accuracy.js";
export type { AlertPreferencesResource, AlertPreferencesTarget } from "./resources/alert-preferences.js";
export type { AlertSubscribeOptions } from "./resources/alert-subscription.js";
export type { AlertActionQuery, AlertListQuery, AlertsResource } from "./resources/alerts.js";
export type { ClustersResource, RemoveClusterOptions } from "./resources/clusters.js";
export type { DiagnosesResource, DiagnosisQuery } from "./resources/diagnoses.js";
export type { IngestOptions, JobListQuery, JobsResource } from "./resources/jobs.js";
export type { ModelsResource } from "./resources/models.js";
export type { Page } from "./resources/paged-list.js";
export { PagedList } from "./resources/paged-list.js";
export type { PolicyAuditListQuery, PolicyResource } from "./resources/policy.js";
export type { PredictionsResource } from "./resources/predictions.js";
export type { TokensResource } from "./resources/tokens.js";
export type { UsersResource } from "./resources/users.js";
export type { SubmissionFormat } from "./submissions/detect-format.js";
export { detectFormat } from "./submissions/detect-format.js";
export type {
  CurrentRequest,
  EditPlan,
  ResourceTargets,
  SkippedResource,
} from "./submissions/edit-plan.js";
export { planEdit } from "./submissions/edit-plan.js";
export type { EditSubmissionOptions, SubmissionEditPlan } from "./submissions/edit-submission.js";
export { editSubmission, parseSubmission, planSubmissionEdit } from "./submissions/edit-submission.js";
export type { ManifestContext } from "./submissions/kubernetes/parse-manifest.js";
export { parseManifest } from "./submissions/kubernetes/parse-manifest.js";
export { parseSbatch } from "./submissions/sbatch/parse-sbatch.js";
export type { SlurmTime } from "./submissions/sbatch/slurm-units.js";
export {
  formatSlurmMemory,
  formatSlurmTime,
  parseSlurmMemory,
  parseSlurmTime,
} from "./submissions/sbatch/slurm-units.js";
export type { ParsedSubmission, SubmissionContext } from "./submissions/submission-context.js";
export type { UnifiedDiffOptions } from "./submissions/unified-diff.js";
export { unifiedDiff } from "./submissions/unified-diff.js";
