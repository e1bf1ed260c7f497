export type { ApiRoute, Role } from "./api/api-routes.js";
export { apiRoutes, ROLES } from "./api/api-routes.js";
export { generatedFiles, wireSchemas } from "./api/generated-files.js";
export { buildOpenApiDocument } from "./api/openapi.js";
export type { FieldError } from "./api-error.js";
export { ApiError } from "./api-error.js";
export {
  ClusterId,
  IdempotencyKey,
  ResourceName,
  ResourceUnit,
  Scheduler,
  Sha256,
  Timestamp,
} from "./common.js";
export type { AccuracySlice } from "./intelligence/accuracy.js";
export { AccuracyReport } from "./intelligence/accuracy.js";
export type { AdviceCause, AdviceEntry, AdvisingModel } from "./intelligence/advice-history.js";
export { AdviceHistory } from "./intelligence/advice-history.js";
export type { AlertRule, AlertState } from "./intelligence/alert.js";
export { Alert, AlertList, AlertQuery } from "./intelligence/alert.js";
export {
  AlertAction,
  AlertActionKind,
  AlertActionList,
  AlertActionOutcome,
  AlertActionQuery,
} from "./intelligence/alert-action.js";
export type { AlertChannelName, QuietHours } from "./intelligence/alert-preferences.js";
export {
  AlertPreferences,
  AlertPreferencesQuery,
  AlertPreferencesUpdate,
} from "./intelligence/alert-preferences.js";
export type { EvidenceRef, FindingKind, Unseen } from "./intelligence/diagnosis.js";
export {
  Diagnosis,
  EvidenceRef as EvidenceRefSchema,
  Finding,
  TimeWindow,
} from "./intelligence/diagnosis.js";
export type { ModelBacktest } from "./intelligence/model-version.js";
export { ModelChange, ModelStatus, ModelVersion } from "./intelligence/model-version.js";
export type {
  Evidence,
  InsufficientEvidence,
  PolicyAdjustment,
  PredictionMode,
  ResourcePrediction,
  ResourceRecommendation,
} from "./intelligence/prediction.js";
export {
  Prediction,
  PredictionBatch,
  PredictionBatchRequest,
  PredictionRequest,
} from "./intelligence/prediction.js";
export { SubmissionEdit } from "./intelligence/submission-edit.js";
export { Artifact, ArtifactKind } from "./jobs/artifact.js";
export { Cluster, ClusterRemoval } from "./jobs/cluster.js";
export {
  IngestRejection,
  IngestResult,
  JobPage,
  JobRecordBatch,
  NodeEventBatch,
  NodeEventList,
  UsageSeries,
} from "./jobs/ingest.js";
export type { JobOutcome, JobPeaks, JobPhase, JobStep } from "./jobs/job-record.js";
export { JobRecord, JobState, RecordSource } from "./jobs/job-record.js";
export type { ArrayInfo } from "./jobs/job-spec.js";
export { JobSpec, ResourceRequest } from "./jobs/job-spec.js";
export { killedForMemory } from "./jobs/memory-kill.js";
export type { NodeEventKind } from "./jobs/node-event.js";
export { NodeEvent } from "./jobs/node-event.js";
export { parseQuantity } from "./jobs/quantity.js";
export type { QuantityKind } from "./jobs/quantity-format.js";
export {
  cpuStepOf,
  formatCpuQuantity,
  formatMemoryQuantity,
  formatQuantity,
  formatQuantityLike,
} from "./jobs/quantity-format.js";
export type { QuantitySection, QuantityWrite, WrittenQuantities } from "./jobs/quantity-writes.js";
export { planQuantityWrites } from "./jobs/quantity-writes.js";
export { RecommendationSavings } from "./jobs/recommendation-savings.js";
export { JobProgress, UsageBatch, UsageSample } from "./jobs/usage-sample.js";
export { CostRates, PricedResource, ResourceCost, WasteCost, WasteGpuType } from "./jobs/waste-cost.js";
export type { WasteJob, WasteRow } from "./jobs/waste-report.js";
export { WasteReport } from "./jobs/waste-report.js";
export { ApiToken, ApiTokenList, ApiTokenRequest, IssuedApiToken, RoleName } from "./platform/api-token.js";
export { UserList, UserSummary } from "./platform/user-summary.js";
export { AdmissionReviewRequest, AdmissionReviewResponse } from "./policy/admission-review.js";
export type { CheckPolicyOptions } from "./policy/check-policy.js";
export { checkPolicy } from "./policy/check-policy.js";
export type { ResourceValues } from "./policy/policy.js";
export { Policy } from "./policy/policy.js";
export { PolicyAuditPage, PolicyAuditQuery, PolicyAuditRecord } from "./policy/policy-audit.js";
export { PolicySimulation, PolicySimulationRequest, ResourceSimulation } from "./policy/policy-simulation.js";
export { SlurmAdviceRequest } from "./policy/slurm-advice.js";
export type { ValidationResult, Validator } from "./validate.js";
export { compileValidator, SchemaValidationError } from "./validate.js";
export {
  assertApiError,
  assertDiagnosis,
  assertJobRecord,
  assertJobSpec,
  assertNodeEvent,
  assertPolicy,
  assertPrediction,
  assertPredictionRequest,
  assertSubmissionEdit,
  assertUsageSample,
  validateApiError,
  validateDiagnosis,
  validateJobRecord,
  validateJobSpec,
  validateNodeEvent,
  validatePolicy,
  validatePrediction,
  validatePredictionRequest,
  validateSubmissionEdit,
  validateUsageSample,
  validators,
} from "./validators.js";
