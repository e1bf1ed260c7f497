import { Type } from "@sinclair/typebox";
import { ClusterId, Timestamp } from "../../common.js";
import { AccuracyReport } from "../../intelligence/accuracy.js";
import { AdviceHistory } from "../../intelligence/advice-history.js";
import { AlertList, AlertQuery } from "../../intelligence/alert.js";
import { AlertActionList, AlertActionQuery } from "../../intelligence/alert-action.js";
import {
  AlertPreferences,
  AlertPreferencesQuery,
  AlertPreferencesUpdate,
} from "../../intelligence/alert-preferences.js";
import {
  Prediction,
  PredictionBatch,
  PredictionBatchRequest,
  PredictionRequest,
} from "../../intelligence/prediction.js";
import { WasteReport } from "../../jobs/waste-report.js";
import type { ApiRoute } from "./api-route.js";
import { ClusterQuery, JobIdParams } from "./route-params.js";

/**
 * The intelligence plane: predictions, how a job's advice changed, their accuracy, live alerts and
 * the waste report.
 */
export const intelligenceRoutes: ApiRoute[] = [
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
    path: "/v1/jobs/{jobId}/advice-history",
    operationId: "getAdviceHistory",
    summary: "How the advice for a job changed across model versions, and why",
    tag: "predictions",
    roles: ["researcher", "platform"],
    params: JobIdParams,
    query: ClusterQuery,
    response: AdviceHistory,
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
    path: "/v1/alerts",
    operationId: "listAlerts",
    summary:
      "Live alerts over running jobs (GPUs idle, memory near its limit, cores idle), most recently seen first; a researcher sees only their own jobs'",
    tag: "alerts",
    roles: ["researcher", "platform"],
    query: AlertQuery,
    response: AlertList,
  },
  {
    method: "GET",
    path: "/v1/alerts/actions",
    operationId: "listAlertActions",
    summary:
      "The audit log of actions under policy (cancelled idle jobs, held submissions, dry-run decisions) with their evidence, newest first; a researcher sees only actions on their own jobs",
    tag: "alerts",
    roles: ["researcher", "platform"],
    query: AlertActionQuery,
    response: AlertActionList,
  },
  {
    method: "GET",
    path: "/v1/alerts/preferences",
    operationId: "getAlertPreferences",
    summary:
      "How live alerts and the weekly digest reach a user (opt-out, channels, quiet hours); a researcher reads only their own",
    tag: "alerts",
    roles: ["researcher", "platform"],
    query: AlertPreferencesQuery,
    response: AlertPreferences,
  },
  {
    method: "PUT",
    path: "/v1/alerts/preferences",
    operationId: "setAlertPreferences",
    summary: "Sets how live alerts and the weekly digest reach a user; a researcher sets only their own",
    tag: "alerts",
    roles: ["researcher", "platform"],
    query: AlertPreferencesQuery,
    body: AlertPreferencesUpdate,
    response: AlertPreferences,
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
        savings: Type.Optional(
          Type.Boolean({
            description:
              "Add what the recorded advice would have saved over the 30 days before `to` (or now).",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    response: WasteReport,
  },
];
