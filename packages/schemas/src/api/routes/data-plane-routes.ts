import { Type } from "@sinclair/typebox";
import { ClusterId, Timestamp } from "../../common.js";
import { Diagnosis } from "../../intelligence/diagnosis.js";
import { Artifact, ArtifactKind } from "../../jobs/artifact.js";
import {
  IngestResult,
  JobPage,
  JobRecordBatch,
  NodeEventBatch,
  NodeEventList,
  UsageSeries,
} from "../../jobs/ingest.js";
import { JobRecord } from "../../jobs/job-record.js";
import { UsageBatch } from "../../jobs/usage-sample.js";
import type { ApiRoute } from "./api-route.js";
import { ClusterQuery, JobIdParams } from "./route-params.js";

/** The data plane: job records, usage, node events and artifacts in; jobs, series and diagnoses out. */
export const dataPlaneRoutes: ApiRoute[] = [
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
];
