import { type Static, Type } from "@sinclair/typebox";
import { ResourceName, Timestamp } from "../common.js";

/** Holdout backtest figures of one resource of a model, as shares (0–1) and counts. */
export const ModelBacktest = Type.Object(
  {
    evaluated: Type.Integer({ minimum: 0, description: "Holdout jobs with a measured value." }),
    coverage: Type.Optional(
      Type.Number({ minimum: 0, description: "Share of those given a recommendation." }),
    ),
    underPredictionRate: Type.Optional(
      Type.Number({ minimum: 0, description: "Share of recommended jobs that needed more." }),
    ),
    slack: Type.Optional(Type.Number({ minimum: 0, description: "Σ max(value − actual, 0) / Σ actual." })),
  },
  { additionalProperties: false, description: "A resource's holdout backtest." },
);
export type ModelBacktest = Static<typeof ModelBacktest>;

/**
 * One trained model version: where it stands, what it was trained on, its backtest and why it
 * was (or was not) put into service.
 */
export const ModelVersion = Type.Object(
  {
    version: Type.String({ minLength: 1 }),
    status: Type.Union(
      [
        Type.Literal("active"),
        Type.Literal("retired"),
        Type.Literal("rejected"),
        Type.Literal("rolled_back"),
      ],
      {
        description:
          "active: in service; retired: replaced; rejected: backtested worse at training; rolled_back: taken out by a rollback.",
      },
    ),
    createdAt: Timestamp,
    activatedAt: Type.Optional(Timestamp),
    trigger: Type.String({ description: "What started the training: schedule, demand, startup, cli." }),
    resources: Type.Array(ResourceName),
    trainingJobs: Type.Integer({ minimum: 0 }),
    dataStart: Type.Optional(Timestamp),
    dataEnd: Type.Optional(Timestamp),
    trainSeconds: Type.Optional(Type.Number({ minimum: 0 })),
    accepted: Type.Optional(
      Type.Boolean({ description: "Whether training put it into service (its backtest was not worse)." }),
    ),
    reasons: Type.Array(Type.String(), { description: "Why it was accepted or rejected at training." }),
    backtest: Type.Partial(Type.Record(ResourceName, ModelBacktest)),
  },
  { $id: "ModelVersion", additionalProperties: false, description: "A trained model version." },
);
export type ModelVersion = Static<typeof ModelVersion>;

/** Answer of `GET /v1/models`: the model in service and every version, newest first. */
export const ModelStatus = Type.Object(
  {
    activeVersion: Type.Union([Type.String(), Type.Null()], {
      description: "The version the registry has in service; null before the first training.",
    }),
    servedVersion: Type.Union([Type.String(), Type.Null()], {
      description:
        "The version the answering server predicts with; null when none is loaded. Other replicas follow the registry within their refresh interval.",
    }),
    models: Type.Array(ModelVersion, { description: "The latest 100 versions, newest first." }),
  },
  { $id: "ModelStatus", additionalProperties: false, description: "The model registry." },
);
export type ModelStatus = Static<typeof ModelStatus>;

/** Answer of `POST /v1/models/{version}/promote` and `POST /v1/models/rollback`. */
export const ModelChange = Type.Object(
  {
    previousVersion: Type.Union([Type.String(), Type.Null()], {
      description: "The version in service before; null when there was none.",
    }),
    activeVersion: Type.String({ description: "The version in service now." }),
    servedVersion: Type.Union([Type.String(), Type.Null()], {
      description: "The version the answering server predicts with now.",
    }),
  },
  {
    $id: "ModelChange",
    additionalProperties: false,
    description: "Which model is in service after a change.",
  },
);
export type ModelChange = Static<typeof ModelChange>;
