import type { JobSpec, Policy, ResourcePrediction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { applyPolicy } from "./apply-policy.js";

const GiB = 2 ** 30;
const MiB = 2 ** 20;

const spec = (requested: JobSpec["requested"], extra: Partial<JobSpec> = {}): JobSpec => ({
  cluster: "hpc1",
  scheduler: "slurm",
  user: "alice",
  partition: "batch",
  requested,
  ...extra,
});

const ok = (
  resource: ResourcePrediction["resource"],
  value: number,
  confidence = 0.95,
): ResourcePrediction => ({
  resource,
  status: "ok",
  unit:
    resource === "memory" || resource === "gpuMemory"
      ? "bytes"
      : resource === "walltime"
        ? "seconds"
        : resource === "gpus"
          ? "devices"
          : "cores",
  value,
  confidence,
  evidence: { group: "user=alice", jobs: 40 },
});

const one = (prediction: ResourcePrediction, job: JobSpec, policy: Policy, mode?: "live" | "shadow") =>
  applyPolicy([prediction], job, policy, mode ? { mode } : {}).resources[0];

describe("applyPolicy", () => {
  it("lowers memory to the recommendation rounded up to the MiB when nothing limits it", () => {
    const r = one(ok("memory", 3.2 * GiB), spec({ memoryBytes: 16 * GiB }), { name: "p" });
    expect(r.value).toBe(Math.ceil((3.2 * GiB) / MiB) * MiB);
    expect(r.changed).toBe(true);
    expect(r.adjustments.map((a) => a.rule)).toEqual(["rounding"]);
  });

  it("limits a decrease to maxDecrease of the request and names the rule", () => {
    const r = one(ok("memory", 1 * GiB), spec({ memoryBytes: 16 * GiB }), {
      name: "p",
      maxDecrease: { memory: 0.5 },
    });
    expect(r.value).toBe(8 * GiB);
    expect(r.adjustments).toEqual([{ rule: "max_decrease", before: 1 * GiB, after: 8 * GiB }]);
  });

  it("limits an increase to maxIncrease, unless a floor asks for more", () => {
    const job = spec({ walltimeSeconds: 600 });
    expect(one(ok("walltime", 7200), job, { name: "p", maxIncrease: { walltime: 1 } }).value).toBe(1200);
    const floored = one(ok("walltime", 7200), job, {
      name: "p",
      maxIncrease: { walltime: 1 },
      floors: { walltime: 1800 },
    });
    expect(floored.value).toBe(1800);
    expect(floored.adjustments.map((a) => a.rule)).toEqual(["max_increase", "floor"]);
  });

  it("never lowers a resource listed in neverLower", () => {
    const r = one(ok("gpus", 1), spec({ gpus: 4 }), { name: "p", neverLower: ["gpus"] });
    expect(r.value).toBe(4);
    expect(r.changed).toBe(false);
    expect(r.adjustments).toEqual([{ rule: "never_lower", before: 1, after: 4 }]);
  });

  it("applies per-partition floors, caps and node capacity, the strictest across named partitions", () => {
    const policy: Policy = {
      name: "p",
      caps: { memory: 512 * GiB },
      partitions: [
        { partition: "batch", floors: { memory: 2 * GiB }, nodeCapacity: { memory: 192 * GiB } },
        { partition: "long", caps: { memory: 128 * GiB } },
      ],
    };
    expect(one(ok("memory", 100 * MiB), spec({ memoryBytes: 4 * GiB }), policy).value).toBe(2 * GiB);
    const big = one(ok("memory", 300 * GiB), spec({ memoryBytes: 64 * GiB }), policy);
    expect(big.value).toBe(192 * GiB);
    expect(big.adjustments.at(-1)?.rule).toBe("node_capacity");
    const both = one(
      ok("memory", 300 * GiB),
      spec({ memoryBytes: 64 * GiB }, { partition: "batch,long" }),
      policy,
    );
    expect(both.value).toBe(128 * GiB);
  });

  it("never pushes a value below the job's own request because of a cap", () => {
    const r = one(ok("memory", 900 * GiB), spec({ memoryBytes: 600 * GiB }), {
      name: "p",
      caps: { memory: 512 * GiB },
    });
    expect(r.value).toBe(600 * GiB);
    expect(r.changed).toBe(false);
    expect(r.adjustments).toEqual([{ rule: "cap", before: 900 * GiB, after: 600 * GiB }]);
  });

  it("keeps the request below minConfidence and for opted-out users", () => {
    const low = one(ok("memory", 2 * GiB, 0.6), spec({ memoryBytes: 8 * GiB }), {
      name: "p",
      minConfidence: 0.9,
    });
    expect(low).toMatchObject({ value: 8 * GiB, changed: false, held: "min_confidence" });
    expect(low.adjustments).toEqual([{ rule: "min_confidence", before: 2 * GiB, after: 8 * GiB }]);
    const out = one(ok("memory", 2 * GiB), spec({ memoryBytes: 8 * GiB }), {
      name: "p",
      optOutUsers: ["alice"],
    });
    expect(out).toMatchObject({ value: 8 * GiB, changed: false, held: "user_opt_out" });
  });

  it("leaves alone listed resources and insufficient evidence, without an adjustment", () => {
    const alone = one(ok("walltime", 60), spec({ walltimeSeconds: 3600 }), {
      name: "p",
      leaveAlone: ["walltime"],
    });
    expect(alone).toMatchObject({ value: 3600, changed: false, held: "leave_alone", adjustments: [] });
    const unsure: ResourcePrediction = {
      resource: "memory",
      status: "insufficient_evidence",
      reasonCode: "too_few_similar_jobs",
      reason: "2 jobs",
    };
    expect(one(unsure, spec({ memoryBytes: GiB }), { name: "p" })).toMatchObject({
      value: GiB,
      held: "insufficient_evidence",
    });
  });

  it("fills memory a job did not ask for, but never adds GPUs", () => {
    const mem = one(ok("memory", 3 * GiB + 1), spec({}), { name: "p" });
    expect(mem).toMatchObject({ value: 3 * GiB + MiB, changed: true });
    expect(mem.requested).toBeUndefined();
    expect(one(ok("gpus", 2), spec({}), { name: "p" })).toMatchObject({
      held: "not_requested",
      changed: false,
    });
    expect(one(ok("gpus", 2), spec({ gpus: 0 }), { name: "p" })).toMatchObject({
      value: 0,
      held: "not_requested",
    });
  });

  it("rounds walltime up to minutes, cores and GPUs to whole units, memory to the configured step", () => {
    expect(one(ok("walltime", 3601), spec({ walltimeSeconds: 7200 }), { name: "p" }).value).toBe(3660);
    expect(one(ok("cores", 2.2), spec({ cores: 8 }), { name: "p" }).value).toBe(3);
    expect(one(ok("gpus", 1.1), spec({ gpus: 4 }), { name: "p" }).value).toBe(2);
    const d = applyPolicy(
      [ok("memory", 3.1 * GiB), ok("cores", 0.2501)],
      spec({ memoryBytes: 8 * GiB, cores: 1 }),
      { name: "p" },
      {
        memoryGranularityBytes: GiB,
        coresGranularity: 0.001,
      },
    );
    expect(d.resources.map((r) => r.value)).toEqual([4 * GiB, 0.251]);
  });

  it("rounds down to the step below a cap rather than crossing it", () => {
    const r = one(ok("walltime", 5390), spec({ walltimeSeconds: 3600 }), {
      name: "p",
      caps: { walltime: 5400.5 },
    });
    expect(r.value).toBe(5400);
  });

  it("never takes a resource away entirely", () => {
    expect(one(ok("memory", 0), spec({ memoryBytes: GiB }), { name: "p" }).value).toBe(MiB);
    expect(one(ok("gpus", 0), spec({ gpus: 2 }), { name: "p" }).value).toBe(1);
  });

  it("computes the same values in shadow mode but marks them as not applied", () => {
    const job = spec({ memoryBytes: 16 * GiB });
    const live = applyPolicy([ok("memory", 2 * GiB)], job, { name: "p" });
    const shadow = applyPolicy([ok("memory", 2 * GiB)], job, { name: "p" }, { mode: "shadow" });
    expect(live.apply).toBe(true);
    expect(shadow).toEqual({ ...live, mode: "shadow", apply: false });
  });
});
