// The light entry of @jobsight/schemas: the wire types and the plain functions, without TypeBox
// or a compiled validator at run time. Importing the full entry costs a process ~13 MB of memory
// (measured: resident size before and after the import); the collector, which runs on every
// compute node, imports this one. Anything here must stay free of value imports from the
// TypeBox schema modules (types are erased and cost nothing).
export type { FieldError } from "./api-error.js";
export type { Alert, AlertRule, AlertState } from "./intelligence/alert.js";
export type { EvidenceRef, FindingKind, Unseen } from "./intelligence/diagnosis.js";
export type {
  Evidence,
  InsufficientEvidence,
  PolicyAdjustment,
  Prediction,
  PredictionMode,
  PredictionRequest,
  ResourcePrediction,
  ResourceRecommendation,
} from "./intelligence/prediction.js";
export type { IngestRejection, IngestResult } from "./jobs/ingest.js";
export type { JobOutcome, JobPeaks, JobPhase, JobRecord, JobState, JobStep } from "./jobs/job-record.js";
export type { ArrayInfo, JobSpec, ResourceRequest } from "./jobs/job-spec.js";
export { killedForMemory } from "./jobs/memory-kill.js";
export type { NodeEvent, NodeEventKind } from "./jobs/node-event.js";
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
export type { UsageSample } from "./jobs/usage-sample.js";
export type { CheckPolicyOptions } from "./policy/check-policy.js";
export { checkPolicy } from "./policy/check-policy.js";
export type { Policy, ResourceValues } from "./policy/policy.js";
