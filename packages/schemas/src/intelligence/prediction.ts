import { type Static, Type } from "@sinclair/typebox";
import { IdempotencyKey, Name, ResourceName, ResourceUnit, Timestamp } from "../common.js";
import { JobSpec } from "../jobs/job-spec.js";

/** Whether a deployment is still only recording (shadow) or hands out recommendations (live). */
export const PredictionMode = Type.Union([Type.Literal("shadow"), Type.Literal("live")], {
  description:
    "shadow: predictions are recorded, callers get no recommendation; live: recommendations are returned.",
});
export type PredictionMode = Static<typeof PredictionMode>;

/** The past jobs a recommendation rests on. */
export const Evidence = Type.Object(
  {
    group: Name("The group of similar past jobs, e.g. user=alice,executable=train.py.", 512),
    jobs: Type.Integer({ minimum: 0, description: "How many past jobs of that group were used." }),
    censoredJobs: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: "How many of them were killed (OOM, timeout) and used as lower bounds.",
      }),
    ),
    since: Type.Optional(Timestamp),
    features: Type.Optional(
      Type.Array(Name("Feature name.", 128), {
        maxItems: 16,
        description: "Features that drove the value, strongest first.",
      }),
    ),
  },
  { additionalProperties: false, description: "The past jobs a recommendation rests on." },
);
export type Evidence = Static<typeof Evidence>;

/** A rule of the platform team's policy that changed a value. */
export const PolicyAdjustment = Type.Object(
  {
    rule: Type.Union(
      [
        Type.Literal("floor"),
        Type.Literal("cap"),
        Type.Literal("node_capacity"),
        Type.Literal("max_decrease"),
        Type.Literal("max_increase"),
        Type.Literal("never_lower"),
        Type.Literal("min_confidence"),
        Type.Literal("user_opt_out"),
        Type.Literal("rounding"),
        Type.Literal("recent_oom"),
      ],
      {
        description:
          "Which rule changed the value; recent_oom: the same application was recently killed for memory, so the value was raised above what it died with.",
      },
    ),
    before: Type.Number({ description: "Value before the rule." }),
    after: Type.Number({ description: "Value after the rule." }),
  },
  { additionalProperties: false, description: "A policy rule that changed a value." },
);
export type PolicyAdjustment = Static<typeof PolicyAdjustment>;

/** A recommendation for one resource. */
export const ResourceRecommendation = Type.Object(
  {
    resource: ResourceName,
    status: Type.Literal("ok"),
    unit: ResourceUnit,
    requested: Type.Optional(
      Type.Number({ minimum: 0, description: "What the job asked for, in the same unit." }),
    ),
    value: Type.Number({
      minimum: 0,
      description: "The recommended value, rounded the way the scheduler takes it.",
    }),
    low: Type.Optional(Type.Number({ minimum: 0, description: "Lower end of the range (≤ value)." })),
    high: Type.Optional(
      Type.Number({
        minimum: 0,
        description:
          "Upper end of the range (≥ value): the recommended value itself, unless a policy moved the value below the model's.",
      }),
    ),
    nominalLevel: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: "Share of jobs the [low, high] range is meant to contain.",
      }),
    ),
    confidence: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        "Measured share of this site's finished jobs like this one whose use fell inside [low, high]: the job needs no more than the value with at least this probability.",
    }),
    basis: Type.Optional(
      Type.Union([Type.Literal("model"), Type.Literal("request")], {
        description:
          "What set the value: the model's calibrated bound, or the job's own request (times the margin this site's jobs like it needed), where the request bounded such jobs at the same risk with less to spare.",
      }),
    ),
    evidence: Evidence,
    adjustments: Type.Optional(
      Type.Array(PolicyAdjustment, { description: "Policy rules that changed the value." }),
    ),
  },
  { additionalProperties: false, description: "A recommendation for one resource." },
);
export type ResourceRecommendation = Static<typeof ResourceRecommendation>;

/** Why no recommendation could be given. */
export const InsufficientEvidenceReason = Type.Union(
  [
    Type.Literal("new_user_and_application"),
    Type.Literal("too_few_similar_jobs"),
    Type.Literal("poor_calibration"),
    Type.Literal("too_uncertain"),
    Type.Literal("not_requested"),
    Type.Literal("no_model"),
  ],
  { description: "Machine-readable reason for insufficient evidence." },
);

/** An explicit refusal to guess for one resource. */
export const InsufficientEvidence = Type.Object(
  {
    resource: ResourceName,
    status: Type.Literal("insufficient_evidence"),
    reasonCode: InsufficientEvidenceReason,
    reason: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: "Why, in words a researcher understands.",
    }),
    requested: Type.Optional(Type.Number({ minimum: 0, description: "What the job asked for." })),
    evidence: Type.Optional(Evidence),
  },
  { additionalProperties: false, description: "No recommendation for this resource, and why." },
);
export type InsufficientEvidence = Static<typeof InsufficientEvidence>;

/** The outcome for one resource: a recommendation or an explicit insufficient_evidence. */
export const ResourcePrediction = Type.Union([ResourceRecommendation, InsufficientEvidence], {
  description: "A recommendation, or insufficient_evidence with the reason.",
});
export type ResourcePrediction = Static<typeof ResourcePrediction>;

/**
 * Ask for a prediction of a job about to be submitted.
 *
 * @example
 * ```ts
 * const req: PredictionRequest = { spec: { cluster: "hpc1", scheduler: "slurm", user: "alice", requested: { memoryBytes: 2 ** 34 } } };
 * ```
 */
export const PredictionRequest = Type.Object(
  {
    spec: JobSpec,
    resources: Type.Optional(
      Type.Array(ResourceName, {
        minItems: 1,
        uniqueItems: true,
        description: "Resources to predict; default all.",
      }),
    ),
    idempotencyKey: Type.Optional(IdempotencyKey),
  },
  { $id: "PredictionRequest", additionalProperties: false, description: "A job about to be submitted." },
);
export type PredictionRequest = Static<typeof PredictionRequest>;

/** A batch of prediction requests. */
export const PredictionBatchRequest = Type.Object(
  {
    requests: Type.Array(PredictionRequest, { minItems: 1, maxItems: 10_000, description: "The requests." }),
  },
  { $id: "PredictionBatchRequest", additionalProperties: false, description: "Several prediction requests." },
);
export type PredictionBatchRequest = Static<typeof PredictionBatchRequest>;

/**
 * A recorded prediction. In shadow mode `resources` is empty: the prediction is recorded for the
 * accuracy report, and nobody sees a recommendation.
 */
export const Prediction = Type.Object(
  {
    id: Name("Prediction id.", 64),
    createdAt: Timestamp,
    mode: PredictionMode,
    modelVersion: Name("Version of the model that made it.", 128),
    cluster: Name("Cluster of the job.", 64),
    user: Name("User of the job.", 128),
    resources: Type.Array(ResourcePrediction, { description: "Per resource; empty in shadow mode." }),
    shadowUntil: Type.Optional(Timestamp),
    notice: Type.Optional(
      Type.String({
        maxLength: 1024,
        description: "A note for the caller, e.g. why nothing is shown in shadow mode.",
      }),
    ),
  },
  { $id: "Prediction", additionalProperties: false, description: "A recorded prediction." },
);
export type Prediction = Static<typeof Prediction>;

/** The answer to a batch request, in the order of the requests. */
export const PredictionBatch = Type.Object(
  { predictions: Type.Array(Prediction, { description: "One per request, in order." }) },
  { $id: "PredictionBatch", additionalProperties: false, description: "Predictions for a batch." },
);
export type PredictionBatch = Static<typeof PredictionBatch>;
