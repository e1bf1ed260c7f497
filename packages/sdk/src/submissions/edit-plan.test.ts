import type { Prediction, ResourcePrediction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { planEdit } from "./edit-plan.js";

const GiB = 2 ** 30;
const ok = (
  resource: ResourcePrediction["resource"],
  value: number,
  confidence = 0.95,
): ResourcePrediction => ({
  resource,
  status: "ok",
  unit:
    resource === "walltime"
      ? "seconds"
      : resource === "cores"
        ? "cores"
        : resource === "gpus"
          ? "devices"
          : "bytes",
  value,
  confidence,
  evidence: { group: "user=alice", jobs: 12 },
});
const prediction = (...resources: ResourcePrediction[]): Prediction => ({
  id: "p_1",
  createdAt: "2026-12-01T10:00:00Z",
  mode: "live",
  modelVersion: "m",
  cluster: "hpc1",
  user: "alice",
  resources,
});
const current = { requested: { memoryBytes: 64 * GiB, cores: 8, gpus: 2, walltimeSeconds: 86_400 } };

describe("planEdit", () => {
  it("takes recommendations as they are without a policy, and never a refusal to guess", () => {
    const p = prediction(ok("memory", 24 * GiB), {
      resource: "walltime",
      status: "insufficient_evidence",
      reasonCode: "too_few_similar_jobs",
      reason: "2 similar jobs",
    });
    expect(planEdit(p, undefined, current)).toEqual({
      targets: { memory: 24 * GiB },
      skipped: [{ resource: "walltime", reason: "insufficient evidence: 2 similar jobs" }],
    });
  });

  it("leaves alone what the policy says, and does not lower neverLower resources", () => {
    const p = prediction(ok("memory", 24 * GiB), ok("gpus", 1), ok("cores", 16), ok("walltime", 3600));
    const plan = planEdit(p, { name: "p", leaveAlone: ["walltime"], neverLower: ["gpus", "cores"] }, current);
    expect(plan.targets).toEqual({ memory: 24 * GiB, cores: 16 });
    expect(plan.skipped.map((s) => s.resource)).toEqual(["gpus", "walltime"]);
  });

  it("applies floors, caps, node capacity and the largest step, then rounds counts up", () => {
    const policy = {
      name: "p",
      floors: { memory: 32 * GiB },
      caps: { walltime: 3 * 86_400 },
      maxDecrease: { cores: 0.5 },
      maxIncrease: { walltime: 1 },
      partitions: [{ partition: "gpu", nodeCapacity: { gpus: 4 } }],
    };
    const p = prediction(ok("memory", 24 * GiB), ok("cores", 1.2), ok("gpus", 6), ok("walltime", 5 * 86_400));
    expect(planEdit(p, policy, { ...current, partition: "gpu" }).targets).toEqual({
      memory: 32 * GiB,
      cores: 4,
      gpus: 4,
      walltime: 2 * 86_400,
    });
  });

  it("keeps millicores for Kubernetes, whole cores for SLURM", () => {
    const p = prediction(ok("cores", 0.2501));
    const k8s = { ...current, requested: {}, scheduler: "kubernetes" as const };
    expect(planEdit(p, undefined, k8s).targets).toEqual({ cores: 0.251 });
    expect(planEdit(p, undefined, current).targets).toEqual({ cores: 1 });
  });

  it("writes Kubernetes cores in the step the user wrote them: whole, tenths or millicores", () => {
    const p = prediction(ok("cores", 30.44));
    const k8s = (cores: number) => ({ requested: { cores }, scheduler: "kubernetes" as const });
    expect(planEdit(p, undefined, k8s(32)).targets).toEqual({ cores: 31 });
    expect(planEdit(p, undefined, k8s(32.5)).targets).toEqual({ cores: 30.5 });
    expect(planEdit(p, undefined, k8s(32.25)).targets).toEqual({ cores: 30.44 });
    expect(planEdit(prediction(ok("cores", 0.2501)), undefined, k8s(0.5)).targets).toEqual({ cores: 0.3 });
  });

  it("skips recommendations below the policy's confidence", () => {
    const plan = planEdit(prediction(ok("memory", GiB, 0.6)), { name: "p", minConfidence: 0.9 }, current);
    expect(plan.targets).toEqual({});
    expect(plan.skipped[0].reason).toMatch(/confidence 0.6/);
  });

  it("changes nothing for opted-out users, namespaces and labelled pods", () => {
    const p = prediction(ok("memory", GiB));
    expect(planEdit(p, { name: "p", optOutUsers: ["alice"] }, current).targets).toEqual({});
    expect(
      planEdit(p, { name: "p", namespaces: { exclude: ["ml"] } }, { ...current, namespace: "ml" }).targets,
    ).toEqual({});
    expect(
      planEdit(p, { name: "p", namespaces: { include: ["ml"] } }, { ...current, namespace: "web" }).targets,
    ).toEqual({});
    expect(
      planEdit(p, { name: "p", namespaces: { include: ["ml"] } }, { ...current, namespace: "ml" }).targets,
    ).toEqual({ memory: GiB });
    const labelled = { ...current, labels: { "jobsight.io/resize": "false" } };
    expect(planEdit(p, { name: "p", optOutLabel: "jobsight.io/resize" }, labelled).skipped[0].reason).toMatch(
      /labelled/,
    );
  });
});
