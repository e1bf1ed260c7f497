import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JobRecord, NodeEvent } from "@jobsight/schemas/light";
import type { CoreV1Event, KubeConfig } from "@kubernetes/client-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DiskSpool } from "../../spool/disk-spool.js";
import { FakeKubeApi } from "../../test-support/fake-kube-api.js";
import { drainSpool, kubernetesFixture, until } from "../../test-support/kubernetes-fixtures.js";
import { KubernetesCluster, type KubernetesClusterOptions } from "./kubernetes-cluster.js";

const fixture = kubernetesFixture;
const fastBackoff = { initialMs: 20, maxMs: 100 };

describe("KubernetesCluster against a Kubernetes API server", () => {
  let tmp: string;
  let spool: DiskSpool;
  let api: FakeKubeApi;
  let kubeConfig: KubeConfig;
  let cluster: KubernetesCluster | undefined;
  const jobs: JobRecord[] = [];
  const events: NodeEvent[] = [];

  beforeEach(async () => {
    tmp = mkdtempSync(join(tmpdir(), "jobsight-k8s-"));
    spool = await DiskSpool.open({ dir: join(tmp, "spool") });
    api = new FakeKubeApi();
    kubeConfig = await api.start();
    jobs.length = 0;
    events.length = 0;
  });
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
    await api.close();
    await spool.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** Move what the collector spooled into `jobs` and `events`. */
  async function drain(): Promise<void> {
    await drainSpool(spool, jobs, events);
  }

  async function waitForRecords(what: string, check: () => boolean): Promise<void> {
    const end = Date.now() + 8000;
    for (;;) {
      await drain();
      if (check()) return;
      if (Date.now() > end)
        throw new Error(`timed out waiting for ${what}; have ${JSON.stringify(phases())}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  function start(options: Partial<KubernetesClusterOptions> = {}): KubernetesCluster {
    cluster = new KubernetesCluster({ cluster: "k8s1", spool, kubeConfig, backoff: fastBackoff, ...options });
    cluster.start();
    return cluster;
  }

  const phases = () => jobs.map((r) => `${r.jobId} ${r.phase}${r.outcome ? ` ${r.outcome.state}` : ""}`);
  const podRequests = (watch: boolean) =>
    api.requests.filter((r) => r.path.endsWith("/pods") && (r.query.watch === "true") === watch);

  it("lists, then watches, and spools each pod's phases once with their outcomes", async () => {
    const oom = fixture("pod-gpu-oom-killed");
    const exit1 = fixture("pod-exit-1");
    const deadline = fixture("pod-deadline-exceeded");
    const init = fixture("pod-init-sidecar-succeeded");
    // Already there when the collector starts: seen through the list.
    api.apply("pods", oom[0]);
    api.apply("pods", exit1[0]);
    const c = start();
    await until("the pod watch", () => podRequests(true).length > 0);
    // Then through the watch, the same versions twice as a flapping update would deliver them.
    for (const pod of [oom[1], oom[2], oom[2], deadline[0], deadline[1], init[0], init[1], init[2]])
      api.apply("pods", pod);
    for (const pod of [exit1[1], oom[3], deadline[2]]) api.apply("pods", pod);
    await waitForRecords("four ended pods", () => jobs.filter((j) => j.phase === "ended").length === 4);
    await c.stop();
    await drain();

    expect(phases().sort()).toEqual([
      "cfd/cfd-run-42-h8d9s ended TIMEOUT",
      "cfd/cfd-run-42-h8d9s started",
      "cfd/cfd-run-42-h8d9s submitted",
      "data/nightly-etl-29a7c-5qzvw ended FAILED",
      "data/nightly-etl-29a7c-5qzvw started",
      "ml/eval-llm-0-t2kfd ended COMPLETED",
      "ml/eval-llm-0-t2kfd started",
      "ml/eval-llm-0-t2kfd submitted",
      "ml/resnet-train-7xk2p ended OUT_OF_MEMORY",
      "ml/resnet-train-7xk2p started",
      "ml/resnet-train-7xk2p submitted",
    ]);
    const ended = (id: string) => jobs.find((j) => j.jobId === id && j.phase === "ended")!;
    expect(ended("data/nightly-etl-29a7c-5qzvw").outcome).toEqual({
      state: "FAILED",
      exitCode: 1,
      reason: "Error (container etl)",
    });
    expect(ended("ml/resnet-train-7xk2p")).toMatchObject({
      startedAt: "2026-12-01T10:02:41.000Z",
      spec: { requested: { memoryBytes: 16 * 2 ** 30, cores: 4, gpus: 1 } },
      idempotencyKey: "k8s1:5c2f8e0a-6d1b-4c3e-9f7a-2b8d1e4c6a90:ended",
    });
    expect(ended("ml/eval-llm-0-t2kfd").spec.requested).toEqual({
      memoryBytes: 6 * 2 ** 30,
      cores: 2.15,
      gpus: 2,
    });
    expect(api.requests.every((r) => r.authorization === "Bearer fake-token")).toBe(true);
    // The watch resumes from the list's resourceVersion.
    expect(podRequests(true)[0].query.resourceVersion).toBe("1002");
    expect(c.stats()).toMatchObject({ records: 11, lists: 2, watchErrors: 0 });
  });

  it("relists after 410 Gone and spools nothing twice", async () => {
    const pods = fixture("pod-restarted-oom-then-succeeded");
    const exit1 = fixture("pod-exit-1");
    api.apply("pods", pods[0]);
    start({ events: false });
    await waitForRecords("the running pod", () => jobs.length === 1);
    api.apply("pods", pods[1]);
    await until("the restart seen", () => api.resourceVersion === 1002);
    // History compacted: the open watch gets ERROR 410 and ends; changes meanwhile come by the relist.
    api.expire();
    api.apply("pods", pods[2]);
    api.apply("pods", exit1[0]);
    await until("the relist", () => podRequests(false).length === 2 && podRequests(true).length === 2);
    api.apply("pods", pods[3]);
    api.apply("pods", exit1[1]);
    await waitForRecords("both ended", () => jobs.filter((j) => j.phase === "ended").length === 2);
    await cluster!.stop();
    await drain();
    expect(phases().sort()).toEqual([
      "data/nightly-etl-29a7c-5qzvw ended FAILED",
      "data/nightly-etl-29a7c-5qzvw started",
      "nlp/tokenize-shard3-k9m4x ended COMPLETED",
      "nlp/tokenize-shard3-k9m4x started",
    ]);
    // The kills before the relist and the one it found are all kept.
    expect(
      jobs.find((j) => j.phase === "ended" && j.jobId.startsWith("nlp"))?.steps?.map((s) => s.stepId),
    ).toEqual(["tokenize.run-1", "tokenize.run-2", "tokenize"]);
    expect(podRequests(true)[1].query.resourceVersion).toBe(String(1004));
  });

  it("reconnects with back-off when the server drops the watch, resuming from the last version", async () => {
    const pods = fixture("pod-exit-1");
    api.apply("pods", pods[0]);
    const c = start({ events: false });
    await waitForRecords("the running pod", () => jobs.length === 1);
    await until("the pod watch", () => api.openWatches === 1);
    api.dropWatches();
    api.apply("pods", pods[1]);
    await waitForRecords("the ended pod", () => jobs.length === 2);
    expect(phases()).toEqual([
      "data/nightly-etl-29a7c-5qzvw started",
      "data/nightly-etl-29a7c-5qzvw ended FAILED",
    ]);
    expect(c.stats().watchErrors).toBeGreaterThanOrEqual(1);
    await until("the watch healthy again", () => c.stats().failingWatches === 0);
    // No relist: the informer kept its resourceVersion and watched again from it.
    expect(podRequests(false)).toHaveLength(1);
    expect(podRequests(true).map((r) => r.query.resourceVersion)).toEqual(["1001", "1001"]);
  });

  it("retries failing lists with back-off until the server answers", async () => {
    api.failNext = { count: 1_000, status: 503 };
    api.apply("pods", fixture("pod-exit-1")[1]);
    const c = start({ events: false });
    await until("a few failures", () => c.stats().watchErrors >= 3);
    expect(c.stats().failingWatches).toBe(1);
    api.failNext = { count: 0, status: 503 };
    await waitForRecords("the pod", () => jobs.length === 1);
    await until("the watch healthy again", () => c.stats().failingWatches === 0);
    expect(phases()).toEqual(["data/nightly-etl-29a7c-5qzvw ended FAILED"]);
  });

  it("watches only the configured namespaces and labels", async () => {
    for (const name of [
      "pod-gpu-oom-killed",
      "pod-exit-1",
      "pod-preempted-deleted",
      "recorded-openshift-job-pod-failed",
      "recorded-runai-gpu-pod-running",
    ])
      api.apply("pods", fixture(name).at(-1));
    start({ namespaces: ["ml"], labelSelector: "job-name=resnet-train", events: false });
    await waitForRecords("the selected pod", () => jobs.length === 1);
    await cluster!.stop();
    await drain();
    expect(phases()).toEqual(["ml/resnet-train-7xk2p ended OUT_OF_MEMORY"]);
    expect(podRequests(false)[0]).toMatchObject({
      path: "/api/v1/namespaces/ml/pods",
      query: { labelSelector: "job-name=resnet-train" },
    });
    expect(podRequests(true)[0]).toMatchObject({
      path: "/api/v1/namespaces/ml/pods",
      query: { labelSelector: "job-name=resnet-train", watch: "true" },
    });
  });

  it("spools node OOM kills from Events, attributed to the pod killed there, and explains deletions", async () => {
    const oom = fixture("pod-gpu-oom-killed");
    const [sweepRunning] = fixture("pod-preempted-deleted");
    api.apply("pods", oom[3]);
    api.apply("pods", sweepRunning);
    start();
    await waitForRecords("both pods", () => jobs.length === 2);
    const all = fixture<CoreV1Event>("events");
    for (const e of all) api.apply("events", e);
    // A bookmark carries no object change.
    api.bookmark();
    await until("every event seen", () => cluster!.stats().events === all.length);
    // Deleted without a DisruptionTarget condition: the scheduler's Preempted event says why.
    api.remove("pods", sweepRunning);
    await waitForRecords(
      "the node events and the deleted pod",
      () => events.length === 2 && jobs.length === 3,
    );
    expect(events.map((e) => [e.kind, e.node, e.oomKill?.pid, e.jobId])).toEqual([
      ["oom_kill", "gpu-node-2", 48213, "ml/resnet-train-7xk2p"],
      ["oom_kill", "cpu-node-2", 77120, undefined],
    ]);
    expect(jobs.at(-1)).toMatchObject({
      jobId: "ml/hp-sweep-3-x7wq2",
      phase: "ended",
      outcome: { state: "PREEMPTED", reason: expect.stringMatching(/^Preempted: Preempted by pod /) },
    });
    // The same events again after a relist are not spooled twice.
    api.expire();
    await until(
      "the event relist",
      () => api.requests.filter((r) => r.path === "/api/v1/events").length >= 4,
    );
    await cluster!.stop();
    await drain();
    expect(events).toHaveLength(2);
  });
});
