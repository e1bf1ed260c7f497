import type { JobSpec } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import type { PredictionForAccuracy } from "../../data-plane/stores/prediction-store.js";
import type { StoredJob } from "../../data-plane/stores/stored-jobs.js";
import { linkKeyOf, linkPredictions } from "./link-predictions.js";

const spec: JobSpec = {
  cluster: "hpc1",
  scheduler: "slurm",
  user: "alice",
  jobName: "train",
  requested: { cores: 4 },
};

const prediction = (
  id: string,
  createdAt: number,
  s: JobSpec = spec,
  submitTime?: number,
): PredictionForAccuracy => ({
  id,
  createdAt,
  cluster: s.cluster,
  linkKey: linkKeyOf(s),
  recommendations: [],
  ...(submitTime !== undefined ? { submitTime } : {}),
});
const job = (jobId: string, submittedAt: number, s: JobSpec = spec): StoredJob => ({
  cluster: s.cluster,
  jobId,
  spec: s,
  submittedAt,
});

describe("linkKeyOf", () => {
  it("ignores the requested values (a live scheduler submits the recommended ones)", () => {
    expect(linkKeyOf({ ...spec, requested: { cores: 1, memoryBytes: 5 } })).toBe(linkKeyOf(spec));
    expect(linkKeyOf({ ...spec, jobName: "other" })).not.toBe(linkKeyOf(spec));
    expect(linkKeyOf({ ...spec, user: "bob" })).not.toBe(linkKeyOf(spec));
  });
});

describe("linkPredictions", () => {
  it("pairs each job with the latest prediction of the same identity made before it", () => {
    const pairs = linkPredictions([prediction("p1", 100), prediction("p2", 200)], [job("j1", 250)]);
    expect(pairs.map((p) => [p.prediction.id, p.job.jobId])).toEqual([["p2", "j1"]]);
  });

  it("uses each prediction once, and leaves jobs submitted too late or of another identity alone", () => {
    const other = { ...spec, jobName: "x" };
    const pairs = linkPredictions(
      [prediction("p1", 100), prediction("p2", 110)],
      [job("j1", 120), job("j2", 130), job("j3", 140), job("j4", 125, other), job("j5", 110 + 3601)],
    );
    expect(pairs.map((p) => [p.prediction.id, p.job.jobId])).toEqual([
      ["p2", "j1"],
      ["p1", "j2"],
    ]);
  });

  it("takes a prediction made just after the submission when clocks differ a little", () => {
    expect(linkPredictions([prediction("p1", 1000)], [job("j1", 950)])).toHaveLength(1);
    expect(linkPredictions([prediction("p1", 1000)], [job("j1", 800)])).toHaveLength(0);
  });

  it("matches a stated submit time instead of the prediction's time", () => {
    const p = prediction("p1", 100, spec, 5000);
    expect(linkPredictions([p], [job("j1", 5030)])).toHaveLength(1);
    expect(linkPredictions([p], [job("j1", 200)])).toHaveLength(0);
  });
});
