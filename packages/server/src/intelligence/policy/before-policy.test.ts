import type { ResourcePrediction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { applyPolicy } from "./apply-policy.js";
import { beforePolicy } from "./before-policy.js";

const GiB = 2 ** 30;
const memory = (value: number, extra: Partial<ResourcePrediction> = {}): ResourcePrediction =>
  ({
    resource: "memory",
    status: "ok",
    unit: "bytes",
    requested: 16 * GiB,
    value,
    confidence: 0.95,
    evidence: { group: "user=alice", jobs: 40 },
    ...extra,
  }) as ResourcePrediction;

describe("beforePolicy", () => {
  it("restores the model's value and drops the adjustments, so applying the policy again names the rule", () => {
    const served = memory(8 * GiB, {
      adjustments: [{ rule: "max_decrease", before: 2 * GiB, after: 8 * GiB }],
    });
    const [restored] = beforePolicy([served], [{ resource: "memory", value: 2 * GiB }]);
    expect(restored).toMatchObject({ value: 2 * GiB, confidence: 0.95 });
    expect(restored).not.toHaveProperty("adjustments");
    const decision = applyPolicy(
      [restored],
      { cluster: "c", scheduler: "slurm", user: "alice", requested: { memoryBytes: 16 * GiB } },
      {
        name: "p",
        maxDecrease: { memory: 0.5 },
      },
    );
    expect(decision.resources[0].value).toBe(8 * GiB);
    expect(decision.resources[0].adjustments.map((a) => a.rule)).toContain("max_decrease");
  });

  it("keeps insufficient evidence and resources without a recorded value as they are", () => {
    const none: ResourcePrediction = {
      resource: "walltime",
      status: "insufficient_evidence",
      reasonCode: "no_model",
      reason: "no model",
    };
    const kept = memory(4 * GiB);
    expect(beforePolicy([none, kept], [])).toEqual([none, kept]);
  });
});
