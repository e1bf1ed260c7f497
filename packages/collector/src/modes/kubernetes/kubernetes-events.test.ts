import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validateNodeEvent } from "@jobsight/schemas";
import type { CoreV1Event } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { meaningOfEvent } from "./kubernetes-events.js";

const events: CoreV1Event[] = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "fixtures", "kubernetes", "events.json"), "utf8"),
);
const byReason = (reason: string) => events.find((e) => e.reason === reason)!;

describe("meaningOfEvent", () => {
  it("turns node-problem-detector's OOMKilling into an oom_kill node event", () => {
    const m = meaningOfEvent(byReason("OOMKilling"), "k8s1");
    expect(m).toEqual({
      kind: "node-event",
      event: {
        cluster: "k8s1",
        node: "gpu-node-2",
        time: "2026-12-01T10:47:02.000Z",
        kind: "oom_kill",
        oomKill: {
          pid: 48213,
          processName: "python",
          totalVmBytes: 21738412 * 1024,
          anonRssBytes: 16725012 * 1024,
          fileRssBytes: 70312 * 1024,
          shmemRssBytes: 8192 * 1024,
        },
        message: expect.stringMatching(/^OOMKilling: Memory cgroup out of memory: Killed process 48213/),
        idempotencyKey: "k8s1:k8s-event:a1f0c3d2-4b5e-4f60-8a7b-9c0d1e2f3a4b:1",
      },
    });
    if (m?.kind !== "node-event") throw new Error("not a node event");
    expect((validateNodeEvent(m.event) as { errors?: unknown }).errors ?? []).toEqual([]);
  });

  it("turns kubelet's SystemOOM into an oom_kill node event, one per occurrence", () => {
    const m = meaningOfEvent(byReason("SystemOOM"), "k8s1");
    expect(m).toMatchObject({
      kind: "node-event",
      event: {
        node: "cpu-node-2",
        time: "2026-12-01T15:12:30.000Z",
        oomKill: { pid: 77120, processName: "python" },
        idempotencyKey: "k8s1:k8s-event:b2e1d4c3-5a6f-4071-9b8c-0d1e2f3a4b5c:2",
      },
    });
  });

  it("keeps a pod's preemption, eviction and warnings as hints, and ignores normal events", () => {
    expect(meaningOfEvent(byReason("Preempted"), "k8s1")).toEqual({
      kind: "pod-hint",
      podKey: "ml/hp-sweep-3-x7wq2",
      hint: { preempted: "Preempted by pod 5c2f8e0a-6d1b-4c3e-9f7a-2b8d1e4c6a90 on node gpu-node-2" },
    });
    expect(meaningOfEvent(byReason("Evicted"), "k8s1")).toMatchObject({
      podKey: "batch/batch-worker-7-lp2nq",
      hint: { evicted: expect.stringMatching(/^The node was low on resource: memory/) },
    });
    expect(meaningOfEvent(byReason("FailedScheduling"), "k8s1")).toMatchObject({
      podKey: "ml/resnet-train-7xk2p",
      hint: { lastWarning: expect.stringMatching(/^FailedScheduling: 0\/6 nodes are available/) },
    });
    expect(meaningOfEvent(byReason("BackOff"), "k8s1")).toMatchObject({
      hint: { lastWarning: expect.stringMatching(/^BackOff: Back-off restarting failed container tokenize/) },
    });
    expect(meaningOfEvent(byReason("Scheduled"), "k8s1")).toBeUndefined();
  });
});
