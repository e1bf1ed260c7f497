import type { TSchema } from "@sinclair/typebox";
import { AccuracyReport } from "./accuracy.js";
import { AdmissionReviewRequest, AdmissionReviewResponse } from "./admission-review.js";
import { ApiError } from "./api-error.js";
import { Artifact } from "./artifact.js";
import { Cluster } from "./cluster.js";
import { Diagnosis } from "./diagnosis.js";
import { IngestResult, JobPage, JobRecordBatch, NodeEventBatch, UsageSeries } from "./ingest.js";
import { JobRecord } from "./job-record.js";
import { JobSpec } from "./job-spec.js";
import { NodeEvent } from "./node-event.js";
import { buildOpenApiDocument } from "./openapi.js";
import { Policy } from "./policy.js";
import { PolicyAuditPage } from "./policy-audit.js";
import { PolicySimulation, PolicySimulationRequest } from "./policy-simulation.js";
import { Prediction, PredictionBatch, PredictionBatchRequest, PredictionRequest } from "./prediction.js";
import { SlurmAdviceRequest } from "./slurm-advice.js";
import { SubmissionEdit } from "./submission-edit.js";
import { UsageBatch, UsageSample } from "./usage-sample.js";
import { WasteReport } from "./waste-report.js";

/** Every top-level wire contract, by the name its JSON Schema file takes. */
export const wireSchemas: Record<string, TSchema> = {
  AccuracyReport,
  AdmissionReviewRequest,
  AdmissionReviewResponse,
  ApiError,
  Artifact,
  Cluster,
  Diagnosis,
  IngestResult,
  JobPage,
  JobRecord,
  JobRecordBatch,
  JobSpec,
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
