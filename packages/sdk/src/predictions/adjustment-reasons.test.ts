import type { ResourcePrediction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { adjustmentReasons } from "./adjustment-reasons.js";

const GiB = 2 ** 30;
const evidence = { group: "user=alice", jobs: 12 };

describe("adjustmentReasons", () => {
  it("names each rule that moved a recommendation, in order, and leaves rounding out", () => {
    const resources: ResourcePrediction[] = [
      {
        resource: "memory",
        status: "ok",
        unit: "bytes",
        value: 96 * GiB,
        confidence: 0.9,
        evidence,
        adjustments: [
          { rule: "recent_oom", before: 64 * GiB, after: 96 * GiB },
          { rule: "rounding", before: 96 * GiB, after: 96 * GiB + 1 },
        ],
      },
      {
        resource: "walltime",
        status: "ok",
        unit: "seconds",
        value: 3_600,
        confidence: 0.95,
        evidence,
        adjustments: [{ rule: "floor", before: 600, after: 3_600 }],
      },
      { resource: "gpus", status: "insufficient_evidence", reason: "not_requested" },
    ] as ResourcePrediction[];
    expect(adjustmentReasons(resources)).toEqual([
      {
        resource: "memory",
        rule: "recent_oom",
        before: 64 * GiB,
        after: 96 * GiB,
        reason: "a recent run of this job was killed for memory: more than it died with",
      },
      { resource: "walltime", rule: "floor", before: 600, after: 3_600, reason: "the policy's floor" },
    ]);
  });

  it("is empty for a prediction nothing moved", () => {
    expect(adjustmentReasons([])).toEqual([]);
  });
});
