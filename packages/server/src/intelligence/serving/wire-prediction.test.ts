import type { JobSpec } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import type { RawOutcome } from "./predictor.js";
import { granularityFor, toWireResource, withPolicy } from "./wire-prediction.js";

const MIB = 2 ** 20;
const GIB = 2 ** 30;
const spec: JobSpec = {
  cluster: "hpc1",
  scheduler: "slurm",
  user: "alice",
  partition: "batch",
  requested: { memoryBytes: 16 * GIB, cores: 8, walltimeSeconds: 7200 },
};
const evidence = { group: "user=alice", jobs: 12, censoredJobs: 1, features: ["user_max"] };
const ok = (
  resource: RawOutcome["resource"],
  value: number,
  low: number,
  high: number,
  confidence = 0.97,
): RawOutcome => ({
  resource,
  prediction: { status: "ok", value, low, high, nominalLevel: 0.9, confidence, evidence },
});

describe("toWireResource", () => {
  it("rounds the value and the top of the range up and the bottom down to the scheduler's steps", () => {
    const g = granularityFor(spec);
    expect(toWireResource(ok("memory", 3.2 * GIB + 5, 2.5 * GIB + 7, 3.9 * GIB), spec, g)).toEqual({
      resource: "memory",
      status: "ok",
      unit: "bytes",
      requested: 16 * GIB,
      value: Math.ceil((3.2 * GIB + 5) / MIB) * MIB,
      low: Math.floor((2.5 * GIB + 7) / MIB) * MIB,
      high: Math.ceil((3.9 * GIB) / MIB) * MIB,
      nominalLevel: 0.9,
      confidence: 0.97,
      evidence: { group: "user=alice", jobs: 12, censoredJobs: 1, features: ["user_max"] },
    });
    expect(toWireResource(ok("walltime", 3601, 1000, 4000), spec, g)).toMatchObject({
      value: 3660,
      low: 960,
      high: 4020,
      unit: "seconds",
    });
    expect(toWireResource(ok("gpus", 0.2, 0.1, 1.3), spec, g)).toMatchObject({
      value: 1,
      low: 0,
      high: 2,
      unit: "devices",
    });
  });

  it("takes Kubernetes cores in the step the job wrote them, millicores at the finest", () => {
    const k8s: JobSpec = { ...spec, scheduler: "kubernetes", requested: {} };
    expect(toWireResource(ok("cores", 1.23456, 1, 2), k8s, granularityFor(k8s))).toMatchObject({
      value: 1.235,
    });
    // cpu: "32" is whole cores: 30.44 is advised as 31, which the edit writes as "31".
    const whole: JobSpec = { ...k8s, requested: { cores: 32 } };
    expect(toWireResource(ok("cores", 30.44, 1, 31), whole, granularityFor(whole))).toMatchObject({
      value: 31,
      high: 31,
    });
    const tenths: JobSpec = { ...k8s, requested: { cores: 1.5 } };
    expect(toWireResource(ok("cores", 1.23456, 1, 2), tenths, granularityFor(tenths))).toMatchObject({
      value: 1.3,
    });
    expect(toWireResource(ok("cores", 1.23456, 1, 2), spec, granularityFor(spec))).toMatchObject({
      value: 2,
    });
  });

  it("keeps insufficient evidence explicit, with the request", () => {
    const raw: RawOutcome = {
      resource: "gpus",
      prediction: { status: "insufficient_evidence", reasonCode: "no_model", reason: "no gpus model" },
    };
    expect(toWireResource(raw, { ...spec, requested: { gpus: 2 } }, granularityFor(spec))).toEqual({
      resource: "gpus",
      status: "insufficient_evidence",
      reasonCode: "no_model",
      reason: "no gpus model",
      requested: 2,
    });
  });
});

describe("withPolicy", () => {
  it("caps a value at the partition's node capacity and says so, keeping the range under it", () => {
    const g = granularityFor(spec);
    const wire = [toWireResource(ok("memory", 40 * GIB, 20 * GIB, 50 * GIB), spec, g)];
    const [r] = withPolicy(
      wire,
      spec,
      { name: "p", partitions: [{ partition: "batch", nodeCapacity: { memory: 32 * GIB } }] },
      "live",
      {},
    );
    expect(r).toMatchObject({
      value: 32 * GIB,
      high: 32 * GIB,
      adjustments: [{ rule: "node_capacity", before: 40 * GIB, after: 32 * GIB }],
    });
  });

  it("holds a recommendation below the minimum confidence at the request", () => {
    const wire = [toWireResource(ok("memory", 4 * GIB, 3 * GIB, 5 * GIB, 0.6), spec, granularityFor(spec))];
    const [r] = withPolicy(wire, spec, { name: "p", minConfidence: 0.9 }, "live", {});
    expect(r).toMatchObject({
      value: 16 * GIB,
      confidence: 0.6,
      adjustments: [{ rule: "min_confidence", before: 4 * GIB, after: 16 * GIB }],
    });
  });

  it("leaves a recommendation the policy does not touch as it is", () => {
    const wire = [toWireResource(ok("memory", 4 * GIB, 3 * GIB, 5 * GIB), spec, granularityFor(spec))];
    expect(withPolicy(wire, spec, { name: "default" }, "shadow", {})).toEqual(wire);
  });
});
