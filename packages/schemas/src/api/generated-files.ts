import type { TSchema } from "@sinclair/typebox";
import { ApiError } from "../api-error.js";
import { AccuracyReport } from "../intelligence/accuracy.js";
import { AdviceHistory } from "../intelligence/advice-history.js";
import { AlertList } from "../intelligence/alert.js";
import { AlertActionList } from "../intelligence/alert-action.js";
import { AlertPreferences, AlertPreferencesUpdate } from "../intelligence/alert-preferences.js";
import { Diagnosis } from "../intelligence/diagnosis.js";
import { ModelChange, ModelStatus } from "../intelligence/model-version.js";
import {
  Prediction,
  PredictionBatch,
  PredictionBatchRequest,
  PredictionRequest,
} from "../intelligence/prediction.js";
import { SubmissionEdit } from "../intelligence/submission-edit.js";
import { Artifact } from "../jobs/artifact.js";
import { Cluster, ClusterRemoval } from "../jobs/cluster.js";
import { IngestResult, JobPage, JobRecordBatch, NodeEventBatch, UsageSeries } from "../jobs/ingest.js";
import { JobRecord } from "../jobs/job-record.js";
import { JobSpec } from "../jobs/job-spec.js";
import { NodeEvent } from "../jobs/node-event.js";
import { UsageBatch, UsageSample } from "../jobs/usage-sample.js";
import { WasteReport } from "../jobs/waste-report.js";
import { ApiTokenList, ApiTokenRequest, IssuedApiToken } from "../platform/api-token.js";
import { UserList } from "../platform/user-summary.js";
import { AdmissionReviewRequest, AdmissionReviewResponse } from "../policy/admission-review.js";
import { Policy } from "../policy/policy.js";
import { PolicyAuditPage } from "../policy/policy-audit.js";
import { PolicySimulation, PolicySimulationRequest } from "../policy/policy-simulation.js";
import { SlurmAdviceRequest } from "../policy/slurm-advice.js";
import { buildOpenApiDocument } from "./openapi.js";

/** Every top-level wire contract, by the name its JSON Schema file takes. */
export const wireSchemas: Record<string, TSchema> = {
  AccuracyReport,
  AdmissionReviewRequest,
  AdmissionReviewResponse,
  AdviceHistory,
  AlertActionList,
  AlertList,
  AlertPreferences,
  AlertPreferencesUpdate,
  ApiError,
  ApiTokenList,
  ApiTokenRequest,
  Artifact,
  Cluster,
  ClusterRemoval,
  Diagnosis,
  IngestResult,
  IssuedApiToken,
  JobPage,
  JobRecord,
  JobRecordBatch,
  JobSpec,
  ModelChange,
  ModelStatus,
  NodeEvent,
  NodeEventBatch,
  Policy,
  PolicyAuditPage,
  PolicySimulation,
  PolicySimulationRequest,
  Prediction,
  PredictionBatch,
  PredictionBatchRequest,
  PredictionRequest,
  SlurmAdviceRequest,
  SubmissionEdit,
  UsageBatch,
  UsageSample,
  UsageSeries,
  UserList,
  WasteReport,
};

const SCHEMA_BASE = "https://jobsight.dev/schemas/";

/**
 * The generated files of this package (JSON Schema per contract, the OpenAPI document), as
 * relative path → content. A test regenerates them and compares with the committed files.
 */
export function generatedFiles(version: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, schema] of Object.entries(wireSchemas)) {
    const json = JSON.parse(JSON.stringify(schema));
    json.$schema = "https://json-schema.org/draft/2020-12/schema";
    json.$id = `${SCHEMA_BASE}${name}.json`;
    json.title = name;
    files.set(`json-schema/${name}.json`, `${JSON.stringify(json, null, 2)}\n`);
  }
  files.set("openapi/openapi.json", `${JSON.stringify(buildOpenApiDocument(version), null, 2)}\n`);
  return files;
}
