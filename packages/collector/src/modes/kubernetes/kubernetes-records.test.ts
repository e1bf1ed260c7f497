import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validateJobRecord } from "@jobsight/schemas";
import type { JobRecord, JobStep } from "@jobsight/schemas/light";
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { podRequests } from "./kubernetes-pod-spec.js";
import { previousRunSteps, recordFromPod } from "./kubernetes-records.js";

// Successive versions of each pod as a watch delivers them (core/v1 Pod, see fixtures/kubernetes).
const fixture = (name: string): V1Pod[] =>
  JSON.parse(readFileSync(join(import.meta.dirname, "..", "fixtures", "kubernetes", `${name}.json`), "utf8"));
const GiB = 2 ** 30;
const MiB = 2 ** 20;

/** The records a watcher would keep: each version's record, and the restarted runs seen so far. */
function lifecycle(pods: V1Pod[], deletedLast = false): JobRecord[] {
  const runs = new Map<string, JobStep>();
  return pods.map((pod, i) => {
    for (const s of previousRunSteps(pod)) runs.set(s.stepId, s);
    const record = recordFromPod(pod, "k8s1", {
      deleted: deletedLast && i === pods.length - 1,
      previousRuns: [...runs.values()],
      now: () => Date.parse("2026-12-02T00:00:00Z"),
    })!;
    const valid = validateJobRecord(record) as { ok: boolean; errors?: unknown };
    expect(valid.errors ?? []).toEqual([]);
    return record;
  });
}

describe("recordFromPod", () => {
  it("follows a GPU pod from Pending to OOMKilled", () => {
    const [unscheduled, scheduled, running, ended] = lifecycle(fixture("pod-gpu-oom-killed"));
    expect([unscheduled.phase, scheduled.phase, running.phase, ended.phase]).toEqual([
      "submitted",
      "submitted",
      "started",
      "ended",
    ]);
    expect(unscheduled).toMatchObject({
      cluster: "k8s1",
      jobId: "ml/resnet-train-7xk2p",
      source: "kubernetes",
      submittedAt: "2026-12-01T09:58:12.000Z",
      spec: {
        scheduler: "kubernetes",
        user: "system:serviceaccount:ml:default",
        account: "ml",
        partition: "gpu-queue",
        qos: "research",
        jobName: "resnet-train",
        executable: "nvcr.io/nvidia/pytorch:24.05-py3",
        requested: { memoryBytes: 16 * GiB, cores: 4, gpus: 1, gpuModel: "NVIDIA-A100-SXM4-80GB" },
      },
    });
    expect(unscheduled.startedAt).toBeUndefined();
    expect(running).toMatchObject({ startedAt: "2026-12-01T10:02:41.000Z", nodes: ["gpu-node-2"] });
    expect(ended).toMatchObject({
      endedAt: "2026-12-01T10:47:02.000Z",
      outcome: { state: "OUT_OF_MEMORY", signal: 9, reason: "OOMKilled" },
      peaks: { runTimeSeconds: 2661 },
      steps: [
        {
          stepId: "train",
          state: "OUT_OF_MEMORY",
          signal: 9,
          elapsedSeconds: 2613,
          memoryLimitBytes: 16 * GiB,
        },
      ],
    });
  });

  it("maps the pod's DeadlineExceeded to TIMEOUT with activeDeadlineSeconds as walltime", () => {
    const ended = lifecycle(fixture("pod-deadline-exceeded")).at(-1)!;
    expect(ended.spec.requested).toEqual({ memoryBytes: 32 * GiB, cores: 8, walltimeSeconds: 3600 });
    expect(ended.outcome).toEqual({
      state: "TIMEOUT",
      reason: "DeadlineExceeded: Pod was active on the node longer than the specified deadline",
    });
  });

  it("maps a non-zero exit to FAILED with the exit code", () => {
    const [running, ended] = lifecycle(fixture("pod-exit-1"));
    expect(running.phase).toBe("started");
    expect(ended.spec.requested).toEqual({ memoryBytes: 512 * MiB, cores: 0.5 });
    expect(ended.outcome).toEqual({ state: "FAILED", exitCode: 1, reason: "Error (container etl)" });
    expect(ended.steps).toEqual([
      { stepId: "etl", state: "FAILED", exitCode: 1, elapsedSeconds: 2, memoryLimitBytes: GiB },
    ]);
  });

  it("counts init containers and sidecars as the scheduler does, and records success", () => {
    const pods = fixture("pod-init-sidecar-succeeded");
    // Apps 2 + 0.05 cores and 4Gi + 64Mi, plus the log-shipper sidecar (0.1, 128Mi); the fetch-data
    // init container alone asks 6Gi, more than all of them.
    expect(podRequests(pods[0])).toEqual({ memory: 6 * GiB, cores: 2.15, gpus: 2 });
    const ended = lifecycle(pods).at(-1)!;
    expect(ended.spec).toMatchObject({
      user: "alice",
      jobName: "eval-llm",
      array: { arrayJobId: "eval-llm", taskId: 0 },
      requested: { memoryBytes: 6 * GiB, cores: 2.15, gpus: 2 },
    });
    expect(ended.outcome).toEqual({ state: "COMPLETED", exitCode: 0 });
    expect(ended.steps?.map((s) => [s.stepId, s.state])).toEqual([
      ["fetch-data", "COMPLETED"],
      ["log-shipper", "COMPLETED"],
      ["evaluate", "COMPLETED"],
      ["metrics", "COMPLETED"],
    ]);
  });

  it("keeps the OOM kills of earlier runs of a restarted container", () => {
    const records = lifecycle(fixture("pod-restarted-oom-then-succeeded"));
    expect(records.map((r) => r.phase)).toEqual(["started", "started", "started", "ended"]);
    const ended = records.at(-1)!;
    expect(ended.outcome).toEqual({ state: "COMPLETED", exitCode: 0 });
    expect(ended.steps).toEqual([
      {
        stepId: "tokenize.run-1",
        state: "OUT_OF_MEMORY",
        signal: 9,
        elapsedSeconds: 367,
        memoryLimitBytes: 2 * GiB,
      },
      {
        stepId: "tokenize.run-2",
        state: "OUT_OF_MEMORY",
        signal: 9,
        elapsedSeconds: 379,
        memoryLimitBytes: 2 * GiB,
      },
      { stepId: "tokenize", state: "COMPLETED", exitCode: 0, elapsedSeconds: 440, memoryLimitBytes: 2 * GiB },
    ]);
  });

  it("maps an eviction to PREEMPTED", () => {
    const ended = lifecycle(fixture("pod-evicted")).at(-1)!;
    expect(ended.outcome?.state).toBe("PREEMPTED");
    expect(ended.outcome?.reason).toMatch(/^Evicted: The node was low on resource: memory\./);
  });

  it("maps a running pod deleted by the scheduler's preemption to PREEMPTED at its deletion time", () => {
    const [running, deleted] = lifecycle(fixture("pod-preempted-deleted"), true);
    expect(running.spec.requested).toEqual({ memoryBytes: 8 * GiB, cores: 4, gpus: 2 });
    expect(deleted).toMatchObject({
      phase: "ended",
      endedAt: "2026-12-01T17:40:00.000Z",
      outcome: {
        state: "PREEMPTED",
        reason: "PreemptionByScheduler: default-scheduler: preempting to accommodate a higher priority pod",
      },
    });
  });

  it("uses the pod's Events where its status does not say why it ended", () => {
    const [unscheduled] = fixture("pod-gpu-oom-killed");
    const cancelled = recordFromPod(unscheduled, "k8s1", {
      deleted: true,
      hints: { lastWarning: "FailedScheduling: 0/6 nodes are available: 2 Insufficient nvidia.com/gpu." },
      now: () => Date.parse("2026-12-01T10:00:00Z"),
    });
    expect(cancelled).toMatchObject({
      phase: "ended",
      endedAt: "2026-12-01T10:00:00.000Z",
      outcome: {
        state: "CANCELLED",
        reason: "FailedScheduling: 0/6 nodes are available: 2 Insufficient nvidia.com/gpu.",
      },
    });
    const [running] = fixture("pod-preempted-deleted");
    const preempted = recordFromPod(running, "k8s1", {
      deleted: true,
      hints: { preempted: "Preempted by pod 5c2f8e0a-6d1b-4c3e-9f7a-2b8d1e4c6a90 on node gpu-node-2" },
    });
    expect(preempted?.outcome).toEqual({
      state: "PREEMPTED",
      reason: "Preempted: Preempted by pod 5c2f8e0a-6d1b-4c3e-9f7a-2b8d1e4c6a90 on node gpu-node-2",
    });
  });

  it("says nothing while a pod's phase is Unknown", () => {
    const [running] = fixture("pod-exit-1");
    expect(
      recordFromPod({ ...running, status: { ...running.status, phase: "Unknown" } }, "k8s1"),
    ).toBeUndefined();
  });
});
