import { type Static, Type } from "@sinclair/typebox";
import { Timestamp } from "../common.js";
import { RecommendationSavings } from "./recommendation-savings.js";
import { CostRates, WasteCost, WasteGpuType } from "./waste-cost.js";

const Seconds = (description: string) => Type.Number({ minimum: 0, description });

/**
 * Idle core-seconds and GPU-seconds measured from a job's usage samples, with what the samples did
 * not cover. "Idle" is reserved × time − used over the stretches the samples observed: CPU from the
 * cgroup's cumulative CPU time between consecutive samples, GPUs from nvidia-smi's utilisation
 * (a GPU at 30% for an hour is 0.7 GPU-hours idle). Time no sample observed is counted apart, never
 * as idle.
 */
const sampledIdle = {
  idleCoreSeconds: Type.Optional(
    Seconds("Σ reserved cores × sampled time − CPU time used in it (core-seconds), from usage samples."),
  ),
  observedCoreSeconds: Type.Optional(
    Seconds("Σ reserved cores × time covered by CPU samples (core-seconds): the base of idleCoreSeconds."),
  ),
  unobservedCoreSeconds: Type.Optional(
    Seconds(
      "Σ reserved cores × run time no CPU sample covered (core-seconds): neither idle nor used, unknown.",
    ),
  ),
  idleGpuSeconds: Type.Optional(
    Seconds("Σ reserved GPUs × sampled time − busy GPU time (utilisation × time) in it (GPU-seconds)."),
  ),
  observedGpuSeconds: Type.Optional(
    Seconds("Σ reserved GPUs × time covered by GPU readings (GPU-seconds): the base of idleGpuSeconds."),
  ),
  unobservedGpuSeconds: Type.Optional(
    Seconds("Σ reserved GPUs × run time no GPU reading covered (GPU-seconds): unknown, not idle."),
  ),
};

/** One ended job's idle cores and GPUs, measured from its samples. */
export const WasteJob = Type.Object(
  {
    cluster: Type.String({ description: "The job's cluster." }),
    jobId: Type.String({ description: "The scheduler's job id." }),
    runSeconds: Type.Optional(Seconds("The job's run time (s).")),
    ...sampledIdle,
  },
  {
    additionalProperties: false,
    description: "One job's idle core-seconds and GPU-seconds, from its samples.",
  },
);
export type WasteJob = Static<typeof WasteJob>;

/** Requested against used, for one group of ended jobs. */
export const WasteRow = Type.Object(
  {
    key: Type.String({ description: "The user, account or partition." }),
    jobs: Type.Integer({ minimum: 0, description: "Ended jobs in the group." }),
    memoryRequestedByteSeconds: Type.Number({ minimum: 0, description: "Σ requested memory × run time." }),
    memoryUsedByteSeconds: Type.Number({ minimum: 0, description: "Σ peak memory × run time." }),
    coreSecondsRequested: Type.Number({ minimum: 0, description: "Σ requested cores × run time." }),
    coreSecondsUsed: Type.Number({ minimum: 0, description: "Σ CPU time." }),
    gpuSecondsRequested: Type.Number({ minimum: 0, description: "Σ requested GPUs × run time." }),
    gpuSecondsUsed: Type.Number({ minimum: 0, description: "Σ GPUs that did work × run time." }),
    walltimeRequestedSeconds: Type.Number({ minimum: 0, description: "Σ requested walltime." }),
    walltimeUsedSeconds: Type.Number({ minimum: 0, description: "Σ run time." }),
    ...sampledIdle,
    jobsWithoutCpuSamples: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Ended jobs that reserved cores and have no two CPU samples: their idle cores are unknown.",
      }),
    ),
    jobsWithoutGpuSamples: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Ended jobs that reserved GPUs and have no two GPU readings: their idle GPUs are unknown.",
      }),
    ),
    gpuTypes: Type.Optional(
      Type.Array(WasteGpuType, {
        description: "The GPU-seconds split by the GPU type the jobs requested (jobs that reserved GPUs).",
      }),
    ),
    cost: Type.Optional(WasteCost),
    idleJobs: Type.Optional(
      Type.Array(WasteJob, {
        maxItems: 10,
        description:
          "The group's jobs with the most idle GPU-seconds, then idle core-seconds, measured from samples (at most 10).",
      }),
    ),
  },
  { additionalProperties: false, description: "Requested against used, for one group." },
);
export type WasteRow = Static<typeof WasteRow>;

/**
 * Requested against used resources of ended jobs, grouped by user, account or partition. With the
 * site's rates configured, each row also carries its `cost` and the report the `rates` applied;
 * without them, amounts only. Asked for, `savings` says what the advice would have saved.
 */
export const WasteReport = Type.Object(
  {
    generatedAt: Timestamp,
    by: Type.Union([Type.Literal("user"), Type.Literal("account"), Type.Literal("partition")]),
    rows: Type.Array(WasteRow, { description: "Largest memory waste first." }),
    rates: Type.Optional(CostRates),
    savings: Type.Optional(RecommendationSavings),
  },
  { $id: "WasteReport", additionalProperties: false, description: "Requested against used resources." },
);
export type WasteReport = Static<typeof WasteReport>;
