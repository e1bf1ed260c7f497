import { type Static, Type } from "@sinclair/typebox";
import { Timestamp } from "../common.js";
import { ResourceCost } from "./waste-cost.js";

const Hours = (description: string) => Type.Number({ minimum: 0, description });

/**
 * What the ended jobs of a window would have saved had their submissions taken the advice
 * recorded for them: the same edits the weekly digest lists ("the edits that would have saved
 * it"). A job saves its requested amount less the advised one over its run time, never below what
 * it was seen to use (a job cut below its use would have failed, not saved).
 */
export const RecommendationSavings = Type.Object(
  {
    from: Timestamp,
    to: Timestamp,
    jobs: Type.Integer({ minimum: 0, description: "Ended jobs of the window that were looked at." }),
    jobsWithAdvice: Type.Integer({
      minimum: 0,
      description: "Of them, jobs whose recorded advice asked for less than they requested.",
    }),
    truncated: Type.Boolean({
      description: "More jobs ended in the window than were looked at: the savings are a lower bound.",
    }),
    coreHours: Hours("Core-hours the advised core counts would not have reserved."),
    memoryGibHours: Hours("GiB-hours of memory the advised memory would not have reserved."),
    gpuHours: Hours("GPU-hours the advised GPU counts would not have reserved."),
    cost: Type.Optional(ResourceCost),
  },
  {
    additionalProperties: false,
    description: "Savings had the recorded advice been applied to the window's ended jobs.",
  },
);
export type RecommendationSavings = Static<typeof RecommendationSavings>;
