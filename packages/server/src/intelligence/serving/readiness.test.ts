import type { AccuracySlice } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { READINESS_THRESHOLDS, readiness } from "./readiness.js";

const slice = (over: Partial<AccuracySlice> = {}): AccuracySlice => ({
  resource: "memory",
  predicted: 500,
  recommended: 450,
  coverage: 0.9,
  underPredictionRate: 0.008,
  weightedUnderPredictionRate: 0.01,
  slack: 0.4,
  requestSlack: 1.4,
  ...over,
});

describe("readiness", () => {
  it("is ready when there are enough jobs over enough days and every judged resource meets the thresholds", () => {
    const r = readiness({ overall: [slice()], endedJobs: 500, spanDays: 20 });
    expect(r.ready).toBe(true);
    expect(r.reasons[0]).toMatch(/^memory: 500 jobs, coverage 90.0%, under-prediction 0.8%/);
  });

  it("names every reason it is not", () => {
    const r = readiness({
      overall: [
        slice({ underPredictionRate: 0.05, weightedUnderPredictionRate: 0.2, coverage: 0.3, slack: 2 }),
      ],
      endedJobs: 100,
      spanDays: 3,
    });
    expect(r.ready).toBe(false);
    expect(r.reasons).toHaveLength(6);
    expect(r.reasons.join("\n")).toMatch(
      /only 100 ended jobs[\s\S]*3.0 days[\s\S]*5.0% of recommended[\s\S]*20.0% of the memory[\s\S]*30.0% of jobs[\s\S]*no better than the users' requests/,
    );
  });

  it("does not judge a resource with too few scored jobs", () => {
    const r = readiness({
      overall: [slice({ predicted: READINESS_THRESHOLDS.minJobsPerResource - 1 })],
      endedJobs: 500,
      spanDays: 20,
    });
    expect(r).toEqual({ ready: false, reasons: ["no resource has 50 scored jobs yet"] });
  });
});
