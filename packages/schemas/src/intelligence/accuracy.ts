import { type Static, Type } from "@sinclair/typebox";
import { Name, ResourceName, Timestamp } from "../common.js";

/** Accuracy figures of one slice (a resource, optionally a partition and a week). */
export const AccuracySlice = Type.Object(
  {
    resource: ResourceName,
    partition: Type.Optional(Name("Partition, absent for all.", 128)),
    weekStart: Type.Optional(Timestamp),
    predicted: Type.Integer({
      minimum: 0,
      description: "Jobs with a recorded prediction that have since ended.",
    }),
    recommended: Type.Integer({ minimum: 0, description: "Of those, jobs that got a recommendation." }),
    coverage: Type.Number({ minimum: 0, maximum: 1, description: "recommended / predicted." }),
    underPredictionRate: Type.Number({
      minimum: 0,
      maximum: 1,
      description: "Share of recommended jobs that needed more.",
    }),
    weightedUnderPredictionRate: Type.Number({
      minimum: 0,
      maximum: 1,
      description: "Share of used resource in under-predicted jobs.",
    }),
    slack: Type.Number({ minimum: 0, description: "Σ max(value − actual, 0) / Σ actual." }),
    requestSlack: Type.Optional(
      Type.Number({ minimum: 0, description: "The same for what users requested." }),
    ),
    rangeCoverage: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: "Share with low ≤ actual ≤ high." }),
    ),
  },
  { additionalProperties: false, description: "Accuracy of one slice." },
);
export type AccuracySlice = Static<typeof AccuracySlice>;

/** Recorded predictions compared with what jobs then did, and whether the site is ready to go live. */
export const AccuracyReport = Type.Object(
  {
    generatedAt: Timestamp,
    mode: Type.Union([Type.Literal("shadow"), Type.Literal("live")]),
    shadowUntil: Type.Optional(Timestamp),
    slices: Type.Array(AccuracySlice, { description: "Per resource, per partition, per week." }),
    points: Type.Optional(
      Type.Array(
        Type.Object(
          {
            resource: ResourceName,
            recommended: Type.Number({ minimum: 0, description: "The recorded recommendation." }),
            actual: Type.Number({ minimum: 0, description: "What the job then used." }),
            censored: Type.Optional(
              Type.Boolean({ description: "The job was killed: actual is a lower bound." }),
            ),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: 5000,
          description: "Recommended against actual per job, for the scatter plot (a sample).",
        },
      ),
    ),
    calibration: Type.Optional(
      Type.Array(
        Type.Object(
          {
            resource: ResourceName,
            confidence: Type.Number({
              minimum: 0,
              maximum: 1,
              description: "Promised confidence of the bucket.",
            }),
            jobs: Type.Integer({ minimum: 0, description: "Jobs in the bucket." }),
            observed: Type.Number({ minimum: 0, maximum: 1, description: "Share not under-predicted." }),
          },
          { additionalProperties: false },
        ),
        { description: "Confidence buckets against the observed share of jobs that fit." },
      ),
    ),
    readiness: Type.Object(
      {
        ready: Type.Boolean({
          description: "Whether the recorded accuracy meets the thresholds to go live.",
        }),
        reasons: Type.Array(Type.String(), { description: "Why, or why not." }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: "AccuracyReport", additionalProperties: false, description: "Accuracy of recorded predictions." },
);
export type AccuracyReport = Static<typeof AccuracyReport>;
