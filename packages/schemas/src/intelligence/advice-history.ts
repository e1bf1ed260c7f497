import { type Static, Type } from "@sinclair/typebox";
import { Name, ResourceName, ResourceUnit, Timestamp } from "../common.js";
import { InsufficientEvidenceReason, PolicyAdjustment } from "./prediction.js";

/** Why the advice for a resource is what it is from one entry of the history on. */
export const AdviceCause = Type.Union(
  [
    Type.Literal("first"),
    Type.Literal("model_version"),
    Type.Literal("policy"),
    Type.Literal("status"),
    Type.Literal("group_history"),
  ],
  {
    description:
      "first: the first advice of the period; model_version: another model version answered; policy: a policy rule now applies, no longer applies or gives another value; status: a recommendation became insufficient_evidence or the other way round; group_history: the same model answered differently because jobs of the same user and application ended in between.",
  },
);
export type AdviceCause = Static<typeof AdviceCause>;

/** One model version that answered for the job, with the data it was trained on. */
export const AdvisingModel = Type.Object(
  {
    version: Name("Model version.", 128),
    trainedAt: Type.Optional(Timestamp),
    trainingJobs: Type.Optional(Type.Integer({ minimum: 0, description: "Jobs it was trained on." })),
    trainingDataStart: Type.Optional(Timestamp),
    trainingDataEnd: Type.Optional(Timestamp),
    firstAsked: Timestamp,
    lastAsked: Timestamp,
    asked: Type.Integer({ minimum: 1, description: "How many times it answered for the job." }),
  },
  {
    additionalProperties: false,
    description:
      "A model version that answered for the job; the training fields are absent when the registry no longer has the version.",
  },
);
export type AdvisingModel = Static<typeof AdvisingModel>;

/** The advice for one resource from one change to the next. */
export const AdviceEntry = Type.Object(
  {
    modelVersions: Type.Array(Name("Model version.", 128), {
      minItems: 1,
      description: "The versions that gave this advice, in the order they first did.",
    }),
    firstAsked: Timestamp,
    lastAsked: Timestamp,
    asked: Type.Integer({ minimum: 1, description: "How many times this advice was given." }),
    status: Type.Union([Type.Literal("ok"), Type.Literal("insufficient_evidence")]),
    value: Type.Optional(Type.Number({ minimum: 0, description: "The recommended value." })),
    low: Type.Optional(Type.Number({ minimum: 0, description: "Lower end of the range." })),
    high: Type.Optional(Type.Number({ minimum: 0, description: "Upper end of the range." })),
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    reasonCode: Type.Optional(InsufficientEvidenceReason),
    reason: Type.Optional(Type.String({ maxLength: 1024, description: "Why there was no recommendation." })),
    adjustments: Type.Optional(
      Type.Array(PolicyAdjustment, { description: "Rules that changed the value, as first given." }),
    ),
    shadow: Type.Optional(
      Type.Boolean({ description: "Given in shadow mode only: recorded, never shown to anyone." }),
    ),
    causes: Type.Array(AdviceCause, { minItems: 1, description: "What changed, machine-readable." }),
    why: Type.String({ minLength: 1, maxLength: 2048, description: "What changed and why, in plain words." }),
  },
  { additionalProperties: false, description: "The advice for one resource from one change on." },
);
export type AdviceEntry = Static<typeof AdviceEntry>;

/**
 * How the advice for a job changed across model versions, and why: the predictions recorded for
 * the job's submission (same cluster, user, job name, script, executable and array task) before it
 * was submitted, per resource one entry per change.
 */
export const AdviceHistory = Type.Object(
  {
    cluster: Name("Cluster of the job.", 64),
    jobId: Name("The job.", 256),
    from: Timestamp,
    to: Timestamp,
    asked: Type.Integer({ minimum: 0, description: "Predictions recorded for the job in [from, to]." }),
    truncated: Type.Optional(
      Type.Boolean({ description: "Only the newest predictions of the period were read." }),
    ),
    models: Type.Array(AdvisingModel, { description: "Each version that answered, oldest first." }),
    resources: Type.Array(
      Type.Object(
        {
          resource: ResourceName,
          unit: Type.Optional(ResourceUnit),
          history: Type.Array(AdviceEntry, {
            minItems: 1,
            description: "One entry per change, oldest first.",
          }),
        },
        { additionalProperties: false },
      ),
      { description: "Per resource that was predicted." },
    ),
  },
  {
    $id: "AdviceHistory",
    additionalProperties: false,
    description: "How the advice for a job changed across model versions, and why.",
  },
);
export type AdviceHistory = Static<typeof AdviceHistory>;
