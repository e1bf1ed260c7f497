export type { AccuracySlice } from "./accuracy.js";
export { AccuracyReport } from "./accuracy.js";
export { AdmissionReviewRequest, AdmissionReviewResponse } from "./admission-review.js";
export type { FieldError } from "./api-error.js";
export { ApiError } from "./api-error.js";
export type { ApiRoute, Role } from "./api-routes.js";
export { apiRoutes } from "./api-routes.js";
export { Artifact, ArtifactKind } from "./artifact.js";
export type { CheckPolicyOptions } from "./check-policy.js";
export { checkPolicy } from "./check-policy.js";
export { Cluster } from "./cluster.js";
export {
  ClusterId,
  IdempotencyKey,
  ResourceName,
  ResourceUnit,
  Scheduler,
  Sha256,
  Timestamp,
} from "./common.js";
export type { EvidenceRef, FindingKind, Unseen } from "./diagnosis.js";
export { Diagnosis, EvidenceRef as EvidenceRefSchema, Finding, TimeWindow } from "./diagnosis.js";
export { generatedFiles, wireSchemas } from "./generated-files.js";
export {
  IngestResult,
  JobPage,
  JobRecordBatch,
  NodeEventBatch,
  NodeEventList,
  UsageSeries,
} from "./ingest.js";
export type { JobOutcome, JobPeaks, JobPhase, JobStep } from "./job-record.js";
export { JobRecord, JobState, RecordSource } from "./job-record.js";
export type { ArrayInfo } from "./job-spec.js";
export { JobSpec, ResourceRequest } from "./job-spec.js";
export { killedForMemory } from "./memory-kill.js";
export type { NodeEventKind } from "./node-event.js";
export { NodeEvent } from "./node-event.js";
export { buildOpenApiDocument } from "./openapi.js";
export type { ResourceValues } from "./policy.js";
export { Policy } from "./policy.js";
export { PolicyAuditPage, PolicyAuditQuery, PolicyAuditRecord } from "./policy-audit.js";
export { PolicySimulation, PolicySimulationRequest, ResourceSimulation } from "./policy-simulation.js";
export type {
  Evidence,
  InsufficientEvidence,
  PolicyAdjustment,
  PredictionMode,
  ResourcePrediction,
  ResourceRecommendation,
} from "./prediction.js";
export { Prediction, PredictionBatch, PredictionBatchRequest, PredictionRequest } from "./prediction.js";
export { parseQuantity } from "./quantity.js";
export { SlurmAdviceRequest } from "./slurm-advice.js";
export { SubmissionEdit } from "./submission-edit.js";
export { UsageBatch, UsageSample } from "./usage-sample.js";
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
export type { WasteRow } from "./waste-report.js";
export { WasteReport } from "./waste-report.js";
