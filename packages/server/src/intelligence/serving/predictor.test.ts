import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitConformal } from "../calibration/conformal.js";
import type { ResourceModel } from "../model/resource-model.js";
import type { TreeEnsemble } from "../model/tree-ensemble.js";
import { mulberry32 } from "../training/quantile-gbdt.js";
import { lowerExp, predictResource } from "./predictor.js";

const constant = (value: number, quantile: number): TreeEnsemble => ({
  baseScore: value,
  learningRate: 1,
  trees: [],
  featureNames: ["x"],
  quantile,
});

/** A model whose every job has centre log(1000) s and a spread of 0.3, calibrated on noisy jobs. */
function model(capAtRequest: boolean): ResourceModel {
  const rng = mulberry32(3);
  const m = Math.log(1000);
  const examples = Array.from({ length: 2000 }, () => ({
    m,
    s: 0.3,
    y: m + 0.3 * (rng() * 2 - 1) * 1.5,
    logRequest: Number.NaN,
  }));
  return {
    resource: "walltime",
    featureNames: ["x"],
    centre: constant(m, 0.5),
    upper: constant(m + 0.3, 0.9),
    calibration: fitConformal(examples, { abstainShare: 0, usageMissRate: 0 }, capAtRequest),
    maxLogValue: Math.log(1e9),
    minUserJobs: 3,
    trainedAt: 0,
    trainingJobs: 2000,
    censoredTrainingJobs: 0,
  };
}

describe("predictResource", () => {
  // Requests whose exp(log(r)) lands one ulp under r: a job that ran to its limit would read as
  // a miss of a value capped at the request.
  const requests = Array.from({ length: 900 }, (_, k) => 100 + k).filter((r) => Math.exp(Math.log(r)) !== r);

  it("gives exactly the request, not exp(log(request)), when the value is capped at it", () => {
    expect(requests.length).toBeGreaterThan(0);
    const capped = model(true);
    for (const request of requests) {
      const p = predictResource(capped, [0], { request, userJobs: 10 });
      expect(p.status).toBe("ok");
      if (p.status !== "ok") continue;
      expect(p.value).toBe(request);
      expect(p.high).toBe(request);
      expect(p.low).toBeLessThanOrEqual(p.high);
      expect(p.basis).toBe("request");
    }
  });

  it("leaves uncapped values alone and ignores the request where the site does not enforce it", () => {
    const request = 10_000;
    const capped = predictResource(model(true), [0], { request, userJobs: 10 });
    const free = predictResource(model(false), [0], { request: 9, userJobs: 10 });
    expect(capped.status === "ok" && capped.value < request && capped.value > 1000).toBe(true);
    expect(free.status === "ok" && free.value > 1000).toBe(true);
  });

  it("never recommends below what the same user's program recently needed for its request", () => {
    const request = 10_000;
    const withNeed = (m: ResourceModel): ResourceModel => ({
      ...m,
      featureNames: ["x", "app_max_by_request"],
    });
    const row = (ratio: number) => [0, Math.log(request) + Math.log(ratio)];
    // Enforced: a recent job that ran to its limit makes the value the request itself.
    const atLimit = predictResource(withNeed(model(true)), row(1), { request, userJobs: 10 });
    expect(atLimit).toMatchObject({ status: "ok", value: request, high: request, basis: "request" });
    // Not enforced: a recent job that used 30% more than it asked for lifts the value to match.
    const over = predictResource(withNeed(model(false)), row(1.3), { request, userJobs: 10 });
    expect(over.status === "ok" && Math.abs(over.value - 13_000) < 1e-6).toBe(true);
    expect(over.status === "ok" && over.low <= over.value && over.high === over.value).toBe(true);
    // A need below the calibrated value changes nothing; without the column or a request, neither.
    const plain = predictResource(model(false), [0], { request, userJobs: 10 });
    const low = predictResource(withNeed(model(false)), row(0.01), { request, userJobs: 10 });
    const noRequest = predictResource(withNeed(model(false)), row(1.3), { userJobs: 10 });
    expect(low).toEqual(plain);
    expect(noRequest.status === "ok" && plain.status === "ok" && noRequest.value === plain.value).toBe(true);
  });
});

describe("lowerExp", () => {
  it("keeps a job that used exactly a low end computed in log space inside the range", () => {
    // Math.exp(Math.log(u)) is above u for a good share of integers (400 MiB among them).
    expect(Math.exp(Math.log(419430400))).toBeGreaterThan(419430400);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 50 }), (u) => {
        const low = lowerExp(Math.log(u));
        expect(low).toBeLessThanOrEqual(u);
        expect(low).toBeGreaterThan(u * (1 - 1e-11));
      }),
      { numRuns: 5000 },
    );
  });
});
