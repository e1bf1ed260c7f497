import { ApiError } from "./api-error.js";
import { AccuracyReport } from "./intelligence/accuracy.js";
import { AdviceHistory } from "./intelligence/advice-history.js";
import { Diagnosis } from "./intelligence/diagnosis.js";
import { Prediction, PredictionBatchRequest, PredictionRequest } from "./intelligence/prediction.js";
import { SubmissionEdit } from "./intelligence/submission-edit.js";
import { Artifact } from "./jobs/artifact.js";
import { Cluster } from "./jobs/cluster.js";
import { IngestResult, JobRecordBatch, NodeEventBatch } from "./jobs/ingest.js";
import { JobRecord } from "./jobs/job-record.js";
import { JobSpec } from "./jobs/job-spec.js";
import { NodeEvent } from "./jobs/node-event.js";
import { UsageBatch, UsageSample } from "./jobs/usage-sample.js";
import { WasteReport } from "./jobs/waste-report.js";
import { AdmissionReviewRequest, AdmissionReviewResponse } from "./policy/admission-review.js";
import { Policy } from "./policy/policy.js";
import { PolicyAuditPage } from "./policy/policy-audit.js";
import { PolicySimulation, PolicySimulationRequest } from "./policy/policy-simulation.js";
import { SlurmAdviceRequest } from "./policy/slurm-advice.js";
import { compileValidator } from "./validate.js";

// One compiled validator per wire contract; compiled lazily on first use.
const v = {
  JobSpec: compileValidator(JobSpec),
  JobRecord: compileValidator(JobRecord),
  JobRecordBatch: compileValidator(JobRecordBatch),
  UsageSample: compileValidator(UsageSample),
  UsageBatch: compileValidator(UsageBatch),
  NodeEvent: compileValidator(NodeEvent),
  NodeEventBatch: compileValidator(NodeEventBatch),
  PredictionRequest: compileValidator(PredictionRequest),
  PredictionBatchRequest: compileValidator(PredictionBatchRequest),
  Prediction: compileValidator(Prediction),
  Policy: compileValidator(Policy),
  SubmissionEdit: compileValidator(SubmissionEdit),
  Diagnosis: compileValidator(Diagnosis),
  ApiError: compileValidator(ApiError),
  Artifact: compileValidator(Artifact),
  AccuracyReport: compileValidator(AccuracyReport),
  AdviceHistory: compileValidator(AdviceHistory),
  Cluster: compileValidator(Cluster),
  IngestResult: compileValidator(IngestResult),
  WasteReport: compileValidator(WasteReport),
  PolicySimulationRequest: compileValidator(PolicySimulationRequest),
  PolicySimulation: compileValidator(PolicySimulation),
  PolicyAuditPage: compileValidator(PolicyAuditPage),
  AdmissionReviewRequest: compileValidator(AdmissionReviewRequest),
  AdmissionReviewResponse: compileValidator(AdmissionReviewResponse),
  SlurmAdviceRequest: compileValidator(SlurmAdviceRequest),
};

/** Validators by schema name, for generic code (the server's routes, the SDK's response checks). */
export const validators = v;

/** Validate a {@link JobSpec}; `errors` name every offending field. */
export const validateJobSpec = v.JobSpec.validate;
/** Throw a `SchemaValidationError` unless the value is a {@link JobSpec}. */
export const assertJobSpec: (value: unknown) => asserts value is JobSpec = v.JobSpec.assert;
/** Validate a {@link JobRecord}. */
export const validateJobRecord = v.JobRecord.validate;
/** Throw unless the value is a {@link JobRecord}. */
export const assertJobRecord: (value: unknown) => asserts value is JobRecord = v.JobRecord.assert;
/** Validate a {@link UsageSample}. */
export const validateUsageSample = v.UsageSample.validate;
/** Throw unless the value is a {@link UsageSample}. */
export const assertUsageSample: (value: unknown) => asserts value is UsageSample = v.UsageSample.assert;
/** Validate a {@link NodeEvent}. */
export const validateNodeEvent = v.NodeEvent.validate;
/** Throw unless the value is a {@link NodeEvent}. */
export const assertNodeEvent: (value: unknown) => asserts value is NodeEvent = v.NodeEvent.assert;
/** Validate a {@link PredictionRequest}. */
export const validatePredictionRequest = v.PredictionRequest.validate;
/** Throw unless the value is a {@link PredictionRequest}. */
export const assertPredictionRequest: (value: unknown) => asserts value is PredictionRequest =
  v.PredictionRequest.assert;
/** Validate a {@link Prediction}. */
export const validatePrediction = v.Prediction.validate;
/** Throw unless the value is a {@link Prediction}. */
export const assertPrediction: (value: unknown) => asserts value is Prediction = v.Prediction.assert;
/** Validate a {@link Policy}. */
export const validatePolicy = v.Policy.validate;
/** Throw unless the value is a {@link Policy}. */
export const assertPolicy: (value: unknown) => asserts value is Policy = v.Policy.assert;
/** Validate a {@link SubmissionEdit}. */
export const validateSubmissionEdit = v.SubmissionEdit.validate;
/** Throw unless the value is a {@link SubmissionEdit}. */
export const assertSubmissionEdit: (value: unknown) => asserts value is SubmissionEdit =
  v.SubmissionEdit.assert;
/** Validate a {@link Diagnosis}. */
export const validateDiagnosis = v.Diagnosis.validate;
/** Throw unless the value is a {@link Diagnosis}. */
export const assertDiagnosis: (value: unknown) => asserts value is Diagnosis = v.Diagnosis.assert;
/** Validate an {@link ApiError}. */
export const validateApiError = v.ApiError.validate;
/** Throw unless the value is an {@link ApiError}. */
export const assertApiError: (value: unknown) => asserts value is ApiError = v.ApiError.assert;
