import type { JobSpec, ResourcePrediction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { scoredOutcome } from "../../data-plane/stores/prediction-store.js";
import type { StoredJob } from "../../data-plane/stores/stored-jobs.js";
import type { LinkedPrediction } from "../recording/link-predictions.js";
import { accuracySlices, outcomeOf, weekStart } from "./accuracy-slices.js";

const spec: JobSpec = {
  cluster: "c",
  scheduler: "slurm",
  user: "u",
  partition: "batch",
  requested: { memoryBytes: 100 },
};
const MONDAY = Date.parse("2026-11-30T00:00:00Z") / 1000;

const job = (
  state: StoredJob["state"],
  memory: number,
  at = MONDAY + 3600,
  partition = "batch",
): StoredJob => ({
  cluster: "c",
  jobId: `${Math.random()}`,
  spec: { ...spec, partition },
  submittedAt: at,
  startedAt: at,
  endedAt: at + 60,
  state,
  peaks: { memoryBytes: memory },
});
const ok = (value: number, low = 0, high = value): ResourcePrediction => ({
  resource: "memory",
  status: "ok",
  unit: "bytes",
  value,
  low,
  high,
  nominalLevel: 0.9,
  confidence: 0.99,
  requested: 100,
  evidence: { group: "user=u", jobs: 5 },
});
const none: ResourcePrediction = {
  resource: "memory",
  status: "insufficient_evidence",
  reasonCode: "too_few_similar_jobs",
  reason: "x",
};
const pair = (r: ResourcePrediction, j: StoredJob): LinkedPrediction => ({
  prediction: {
    id: j.jobId,
    createdAt: j.submittedAt,
    cluster: "c",
    linkKey: "k",
    recommendations: [scoredOutcome(r)],
  },
  job: j,
});

describe("outcomeOf", () => {
  it("is exact for completed jobs and a lower bound for jobs killed for that resource", () => {
    expect(outcomeOf(job("COMPLETED", 40), "memory")).toEqual({ actual: 40, exact: true });
    expect(outcomeOf(job("OUT_OF_MEMORY", 40), "memory")).toEqual({ actual: 100, exact: false });
    expect(outcomeOf(job("OUT_OF_MEMORY", 40), "walltime")).toBeUndefined();
    expect(outcomeOf(job("FAILED", 40), "memory")).toBeUndefined();
    expect(outcomeOf(job("COMPLETED", 40), "walltime")).toEqual({ actual: 60, exact: true });
  });
});

describe("weekStart", () => {
  it("is the Monday 00:00 UTC of the week", () => {
    expect(weekStart(MONDAY + 6 * 86_400 + 86_399)).toBe("2026-11-30T00:00:00.000Z");
    expect(weekStart(MONDAY - 1)).toBe("2026-11-23T00:00:00.000Z");
  });
});

describe("accuracySlices", () => {
  it("computes coverage, under-prediction (jobs and usage), slack, request slack and range coverage", () => {
    const slices = accuracySlices([
      pair(ok(50, 30, 60), job("COMPLETED", 40)),
      pair(ok(50, 30, 60), job("COMPLETED", 80)),
      pair(none, job("COMPLETED", 10)),
      // Killed with 100 while we said 90: a sure miss; said 150: unknown, not scored.
      pair(ok(90), job("OUT_OF_MEMORY", 100)),
      pair(ok(150), job("OUT_OF_MEMORY", 100)),
    ]);
    const overall = slices.find((s) => s.partition === undefined && s.weekStart === undefined);
    expect(overall).toEqual({
      resource: "memory",
      predicted: 4,
      recommended: 3,
      coverage: 0.75,
      underPredictionRate: 2 / 3,
      weightedUnderPredictionRate: 180 / 220,
      slack: 10 / 220,
      requestSlack: (60 + 20) / 120,
      rangeCoverage: 0.5,
    });
  });

  it("slices per partition and per week of submission", () => {
    const slices = accuracySlices([
      pair(ok(50), job("COMPLETED", 40, MONDAY + 10, "a")),
      pair(ok(50), job("COMPLETED", 40, MONDAY + 8 * 86_400, "b")),
    ]);
    expect(slices.filter((s) => s.partition).map((s) => [s.partition, s.predicted])).toEqual([
      ["a", 1],
      ["b", 1],
    ]);
    expect(slices.filter((s) => s.weekStart).map((s) => s.weekStart)).toEqual([
      "2026-11-30T00:00:00.000Z",
      "2026-12-07T00:00:00.000Z",
    ]);
  });
});
