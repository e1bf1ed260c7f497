import type { JobSpec, ResourcePrediction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { applyPolicy } from "./apply-policy.js";
import { auditRecordsFor, limitingRule } from "./policy-audit.js";
import { type SimulatedJob, simulatePolicy } from "./policy-simulate.js";

const GiB = 2 ** 30;

const job = (
  user: string,
  requested: JobSpec["requested"],
  predictions: [ResourcePrediction["resource"], number, number?][],
): SimulatedJob => ({
  spec: { cluster: "hpc1", scheduler: "slurm", user, partition: "batch", requested },
  resources: predictions.map(([resource, value, confidence = 0.95]) => ({
    resource,
    status: "ok",
    unit: resource === "memory" ? "bytes" : resource === "walltime" ? "seconds" : "cores",
    value,
    confidence,
    evidence: { group: `user=${user}`, jobs: 30 },
  })),
});

describe("simulatePolicy", () => {
  const lastWeek = [
    job("alice", { memoryBytes: 16 * GiB, walltimeSeconds: 86400 }, [
      ["memory", 2 * GiB],
      ["walltime", 3600],
    ]),
    job("alice", { memoryBytes: 4 * GiB }, [["memory", 6 * GiB]]),
    job("bob", { memoryBytes: 8 * GiB }, [["memory", 1 * GiB, 0.5]]),
    job("carol", { memoryBytes: 8 * GiB }, [["memory", 1 * GiB]]),
    job("dave", {}, [["memory", 3 * GiB]]),
  ];
  const policy = {
    name: "trial",
    maxDecrease: { memory: 0.5, walltime: 0.75 },
    minConfidence: 0.9,
    optOutUsers: ["carol"],
  };

  it("counts per resource the jobs changed, raised, lowered, filled and held, and the totals", () => {
    const sim = simulatePolicy(lastWeek, policy);
    expect(sim.jobs).toBe(5);
    const memory = sim.resources.find((r) => r.resource === "memory")!;
    expect(memory).toMatchObject({
      jobs: 5,
      changed: 3,
      raised: 1,
      lowered: 1,
      filled: 1,
      held: { min_confidence: 1, user_opt_out: 1 },
      limitedBy: { max_decrease: 1 },
    });
    expect(memory.requestedTotal).toBe(36 * GiB);
    // 16 → 8 (max decrease), 4 → 6, bob and carol keep 8 each; dave's 3 GiB is not a request.
    expect(memory.appliedTotal).toBe(30 * GiB);
    const walltime = sim.resources.find((r) => r.resource === "walltime")!;
    expect(walltime).toMatchObject({
      jobs: 1,
      changed: 1,
      lowered: 1,
      requestedTotal: 86400,
      appliedTotal: 21600,
    });
    expect(sim.resources.map((r) => r.resource)).toEqual(["memory", "walltime"]);
  });

  it("reports nothing changed for a policy that leaves everything alone", () => {
    const sim = simulatePolicy(lastWeek, { name: "off", leaveAlone: ["memory", "walltime"] });
    for (const r of sim.resources) {
      expect(r.changed).toBe(0);
      expect(r.appliedTotal).toBe(r.requestedTotal);
    }
  });
});

describe("auditRecordsFor", () => {
  it("records each changed resource with before, after, model version and the limiting rule", () => {
    const { spec, resources } = lastWeekJob();
    const decision = applyPolicy(resources, spec, { name: "p", maxDecrease: { memory: 0.5 } });
    const records = auditRecordsFor(decision, {
      cluster: "hpc1",
      actor: "slurm-cli-filter",
      user: "alice",
      submittedBy: "root",
      job: "sbatch train.sh",
      modelVersion: "m-7",
      policy: "p",
      at: new Date("2026-12-01T10:00:00Z"),
    });
    expect(records).toEqual([
      {
        recordedAt: "2026-12-01T10:00:00.000Z",
        cluster: "hpc1",
        actor: "slurm-cli-filter",
        user: "alice",
        submittedBy: "root",
        job: "sbatch train.sh",
        resource: "memory",
        before: 16 * GiB,
        after: 8 * GiB,
        modelVersion: "m-7",
        policy: "p",
        limitedBy: "max_decrease",
        adjustments: [{ rule: "max_decrease", before: 2 * GiB, after: 8 * GiB }],
        mode: "live",
      },
    ]);
  });

  it("names rounding as the limit only when no policy rule moved the value", () => {
    expect(limitingRule([{ rule: "rounding", before: 1, after: 2 }])).toBe("rounding");
    expect(
      limitingRule([
        { rule: "floor", before: 1, after: 2 },
        { rule: "rounding", before: 2, after: 3 },
      ]),
    ).toBe("floor");
    expect(limitingRule([])).toBeNull();
  });
});

function lastWeekJob(): SimulatedJob {
  return job("alice", { memoryBytes: 16 * GiB, cores: 4 }, [
    ["memory", 2 * GiB],
    ["cores", 4],
  ]);
}
