import { type TSchema, Type } from "@sinclair/typebox";
import { AccuracyReport } from "./accuracy.js";
import { AdmissionReviewRequest, AdmissionReviewResponse } from "./admission-review.js";
import { Artifact, ArtifactKind } from "./artifact.js";
import { Cluster } from "./cluster.js";
import { ClusterId, Timestamp } from "./common.js";
import { Diagnosis } from "./diagnosis.js";
import {
  IngestResult,
  JobPage,
  JobRecordBatch,
  NodeEventBatch,
  NodeEventList,
  UsageSeries,
} from "./ingest.js";
import { JobRecord } from "./job-record.js";
import { Policy } from "./policy.js";
import { PolicyAuditPage, PolicyAuditQuery } from "./policy-audit.js";
import { PolicySimulation, PolicySimulationRequest } from "./policy-simulation.js";
import { Prediction, PredictionBatch, PredictionBatchRequest, PredictionRequest } from "./prediction.js";
import { SlurmAdviceRequest } from "./slurm-advice.js";
import { UsageBatch } from "./usage-sample.js";
import { WasteReport } from "./waste-report.js";

/** The roles of Jobsight's users and machines. */
export type Role = "researcher" | "platform" | "collector" | "scheduler";

/** One route of the REST surface: the single source for the server, the OpenAPI document and the SDK. */
export type ApiRoute = {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** OpenAPI-style path, e.g. `/v1/jobs/{jobId}`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Roles allowed; an empty list means unauthenticated (health only). */
  roles: Role[];
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  /** A raw (non-JSON) body, e.g. an artifact upload or OTLP protobuf. */
  rawBody?: string;
  response: TSchema | null;
  /** Alternative response media types besides application/json. */
  produces?: string[];
  successStatus?: number;
};

const JobIdParams = Type.Object(
  { jobId: Type.String({ minLength: 1, maxLength: 256, description: "The job id (URL-encoded)." }) },
  { additionalProperties: false },
);
const ClusterQuery = Type.Object({ cluster: Type.Optional(ClusterId) }, { additionalProperties: false });
const Health = Type.Object(
  {
    status: Type.Union([Type.Literal("ok"), Type.Literal("degraded"), Type.Literal("unavailable")]),
    version: Type.String(),
    checks: Type.Optional(Type.Record(Type.String(), Type.String())),
    licence: Type.Optional(
      Type.String({ description: "Licence status: valid, grace, expired, missing, invalid." }),
    ),
  },
  { $id: "Health", description: "Health of the server." },
);

/** Every REST route Jobsight serves, in one table. */
export const apiRoutes: ApiRoute[] = [
  {
    method: "GET",
    path: "/healthz",
    operationId: "getHealth",
    summary: "Liveness and status",
    tag: "operations",
    roles: [],
    response: Health,
  },
  {
    method: "GET",
    path: "/readyz",
    operationId: "getReadiness",
    summary: "Readiness (storage reachable)",
    tag: "operations",
    roles: [],
    response: Health,
  },
  {
    method: "GET",
    path: "/metrics",
    operationId: "getMetrics",
    summary:
      "The server's own metrics in the Prometheus text format: requests by operation and status, durations, process, database pool, licence, model",
    tag: "operations",
    roles: ["platform"],
    response: null,
    produces: ["text/plain"],
  },
  {
    method: "POST",
    path: "/v1/jobs",
    operationId: "ingestJobRecords",
    summary: "Ingest job lifecycle records",
    tag: "ingest",
    roles: ["collector", "platform"],
    body: JobRecordBatch,
    response: IngestResult,
  },
  {
    method: "GET",
    path: "/v1/jobs",
    operationId: "listJobs",
    summary: "List jobs, newest first, with cursor pagination",
    tag: "jobs",
    roles: ["researcher", "platform"],
    query: Type.Object(
      {
        cluster: Type.Optional(ClusterId),
        user: Type.Optional(Type.String()),
        account: Type.Optional(Type.String()),
        partition: Type.Optional(Type.String()),
        state: Type.Optional(Type.String()),
        from: Type.Optional(Timestamp),
        to: Type.Optional(Timestamp),
        cursor: Type.Optional(Type.String()),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
      },
      { additionalProperties: false },
    ),
    response: JobPage,
  },
  {
    method: "GET",
    path: "/v1/jobs/{jobId}",
    operationId: "getJob",
    summary: "A job's record",
    tag: "jobs",
    roles: ["researcher", "platform"],
    params: JobIdParams,
    query: ClusterQuery,
    response: JobRecord,
  },
  {
    method: "GET",
    path: "/v1/jobs/{jobId}/usage",
    operationId: "getJobUsage",
    summary: "A job's time series",
    tag: "jobs",
    roles: ["researcher", "platform"],
    params: JobIdParams,
    query: Type.Object(
      {
        cluster: Type.Optional(ClusterId),
        stepSeconds: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 86_400, description: "Downsample to buckets of this width." }),
        ),
      },
      { additionalProperties: false },
    ),
    response: UsageSeries,
  },
  {
    method: "GET",
    path: "/v1/jobs/{jobId}/events",
    operationId: "getJobEvents",
    summary: "A job's node events",
    tag: "jobs",
    roles: ["researcher", "platform"],
    params: JobIdParams,
    query: ClusterQuery,
    response: NodeEventList,
  },
  {
    method: "GET",
    path: "/v1/jobs/{jobId}/diagnosis",
    operationId: "getDiagnosis",
    summary: "Why a job failed or ran badly (JSON, or Markdown with Accept: text/markdown)",
    tag: "diagnosis",
    roles: ["researcher", "platform"],
    params: JobIdParams,
    query: ClusterQuery,
    response: Diagnosis,
    produces: ["text/markdown"],
  },
  {
    method: "POST",
    path: "/v1/usage",
    operationId: "ingestUsage",
    summary: "Ingest usage samples (JSON; OTLP is preferred)",
    tag: "ingest",
    roles: ["collector"],
    body: UsageBatch,
    response: IngestResult,
  },
  {
    method: "POST",
    path: "/v1/events",
    operationId: "ingestNodeEvents",
    summary: "Ingest node events",
    tag: "ingest",
    roles: ["collector"],
    body: NodeEventBatch,
    response: IngestResult,
  },
  {
    method: "PUT",
    path: "/v1/artifacts",
    operationId: "putArtifact",
    summary: "Store an artifact (content-addressed)",
    tag: "ingest",
    roles: ["collector", "platform", "researcher"],
    rawBody: "application/octet-stream",
    query: Type.Object(
      {
        kind: ArtifactKind,
        cluster: Type.Optional(ClusterId),
        jobId: Type.Optional(Type.String({ maxLength: 256 })),
      },
      { additionalProperties: false },
    ),
    response: Artifact,
    successStatus: 201,
  },
  {
    method: "GET",
    path: "/v1/artifacts/{sha256}",
    operationId: "getArtifact",
    summary: "Read an artifact's bytes",
    tag: "jobs",
    roles: ["platform", "researcher"],
    params: Type.Object(
      { sha256: Type.String({ pattern: "^[a-f0-9]{64}$" }) },
      { additionalProperties: false },
    ),
    response: null,
    produces: ["application/octet-stream"],
  },
  {
    method: "POST",
    path: "/v1/predictions",
    operationId: "createPrediction",
    summary: "Predict one job's resources",
    tag: "predictions",
    roles: ["researcher", "platform", "scheduler"],
    body: PredictionRequest,
    response: Prediction,
  },
  {
    method: "POST",
    path: "/v1/predictions/batch",
    operationId: "createPredictionBatch",
    summary: "Predict many jobs",
    tag: "predictions",
    roles: ["researcher", "platform", "scheduler"],
    body: PredictionBatchRequest,
    response: PredictionBatch,
  },
  {
    method: "GET",
    path: "/v1/predictions/{id}",
    operationId: "getPrediction",
    summary: "A recorded prediction",
    tag: "predictions",
    roles: ["researcher", "platform", "scheduler"],
    params: Type.Object(
      { id: Type.String({ minLength: 1, maxLength: 64 }) },
      { additionalProperties: false },
    ),
    response: Prediction,
  },
  {
    method: "GET",
    path: "/v1/accuracy",
    operationId: "getAccuracy",
    summary: "Recorded predictions against what jobs did",
    tag: "predictions",
    roles: ["platform"],
    query: ClusterQuery,
    response: AccuracyReport,
  },
  {
    method: "GET",
    path: "/v1/reports/waste",
    operationId: "getWasteReport",
    summary: "Requested against used resources, by user, account and partition",
    tag: "reports",
    roles: ["platform"],
    query: Type.Object(
      {
        cluster: Type.Optional(ClusterId),
        from: Type.Optional(Timestamp),
        to: Type.Optional(Timestamp),
        by: Type.Optional(
          Type.Union([Type.Literal("user"), Type.Literal("account"), Type.Literal("partition")]),
        ),
      },
      { additionalProperties: false },
    ),
    response: WasteReport,
  },
  {
    method: "GET",
    path: "/v1/policy",
    operationId: "getPolicy",
    summary: "The active policy",
    tag: "policy",
    roles: ["platform", "scheduler"],
    response: Policy,
  },
  {
    method: "PUT",
    path: "/v1/policy",
    operationId: "putPolicy",
    summary: "Replace the active policy",
    tag: "policy",
    roles: ["platform"],
    body: Policy,
    response: Policy,
  },
  {
    method: "POST",
    path: "/v1/policy/simulate",
    operationId: "simulatePolicy",
    summary: "What a policy would have changed on the predictions recorded over a period",
    tag: "policy",
    roles: ["platform"],
    body: PolicySimulationRequest,
    response: PolicySimulation,
  },
  {
    method: "GET",
    path: "/v1/policy/audit",
    operationId: "listPolicyAudit",
    summary:
      "Changes applied under the policy (who, what, before, after, model, limiting rule), newest first",
    tag: "policy",
    roles: ["platform"],
    query: PolicyAuditQuery,
    response: PolicyAuditPage,
  },
  {
    method: "POST",
    path: "/v1/admission/mutate",
    operationId: "admitKubernetesObject",
    summary:
      "Kubernetes mutating admission webhook: sets resources under the policy; always allowed, unchanged on any failure",
    tag: "schedulers",
    roles: ["scheduler"],
    body: AdmissionReviewRequest,
    response: AdmissionReviewResponse,
  },
  {
    method: "POST",
    path: "/v1/schedulers/slurm/advice",
    operationId: "adviseSlurmSubmission",
    summary:
      "Options to set on a SLURM submission under the policy (text/plain key=value lines for the Lua filters)",
    tag: "schedulers",
    roles: ["scheduler"],
    body: SlurmAdviceRequest,
    response: null,
    produces: ["text/plain"],
  },
  {
    method: "GET",
    path: "/v1/clusters",
    operationId: "listClusters",
    summary: "Registered clusters",
    tag: "clusters",
    roles: ["platform"],
    response: Type.Object({ clusters: Type.Array(Cluster) }, { additionalProperties: false }),
  },
  {
    method: "POST",
    path: "/v1/clusters",
    operationId: "registerCluster",
    summary: "Register a cluster",
    tag: "clusters",
    roles: ["platform"],
    body: Cluster,
    response: Cluster,
    successStatus: 201,
  },
];
