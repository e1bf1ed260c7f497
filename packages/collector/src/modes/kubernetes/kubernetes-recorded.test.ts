import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JobRecord, NodeEvent } from "@jobsight/schemas/light";
import type { CoreV1Event } from "@kubernetes/client-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DiskSpool } from "../../spool/disk-spool.js";
import { FakeKubeApi } from "../../test-support/fake-kube-api.js";
import { drainSpool, kubernetesFixture, until } from "../../test-support/kubernetes-fixtures.js";
import { KubernetesCluster } from "./kubernetes-cluster.js";

// Objects recorded from real clusters and committed in public repositories (provenance in
// fixtures/kubernetes/README.md), served by the local API server the way a kube-apiserver would.
const fixture = kubernetesFixture;

describe("KubernetesCluster on objects recorded from real clusters", () => {
  let tmp: string;
  let spool: DiskSpool;
  let api: FakeKubeApi;
  let cluster: KubernetesCluster | undefined;
  const jobs: JobRecord[] = [];
  const events: NodeEvent[] = [];

  beforeEach(async () => {
    tmp = mkdtempSync(join(tmpdir(), "jobsight-k8s-rec-"));
    spool = await DiskSpool.open({ dir: join(tmp, "spool") });
    api = new FakeKubeApi();
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

  async function drain(): Promise<boolean> {
    await drainSpool(spool, jobs, events);
    return true;
  }

  async function start(): Promise<KubernetesCluster> {
    const kubeConfig = await api.start();
    cluster = new KubernetesCluster({
      cluster: "k8s1",
      spool,
      kubeConfig,
      backoff: { initialMs: 20, maxMs: 100 },
    });
    cluster.start();
    return cluster;
  }

  it("records a failed OpenShift Job pod (CRI-O, exit 3) with what it asked for", async () => {
    const [failed] = fixture("recorded-openshift-job-pod-failed");
    await start();
    // Delivered by the watch (ADDED), as when a pod is created and fails between two lists.
    await until("the pod and event watches", () => api.openWatches === 2);
    api.apply("pods", failed);
    await until("the ended pod", async () => (await drain()) && jobs.length === 1);
    expect(jobs[0]).toMatchObject({
      jobId: "di-288312/auditlog-retention-28566720-t22qj",
      phase: "ended",
      outcome: { state: "FAILED", exitCode: 3, reason: "Error (container auditlog-retention)" },
      // requests cpu 4m and memory 512Mi; the limit (512Mi) is the same as the request.
      spec: { requested: { memoryBytes: 512 * 2 ** 20, cores: 0.004 } },
    });
    expect(jobs[0].spec.requested.gpus ?? 0).toBe(0);
  });

  it("records a running Run:ai pod holding one nvidia.com/gpu, then its deletion", async () => {
    const [running] = fixture("recorded-runai-gpu-pod-running");
    api.apply("pods", running);
    await start();
    await until("the running pod", async () => (await drain()) && jobs.length === 1);
    expect(jobs[0]).toMatchObject({
      jobId: "runai-reservation/runai-reservation-gpu-i-0b498db53280b86a6-fzdhl",
      phase: "started",
      // status.startTime: when the kubelet took the pod, before its container started (09:03:27).
      startedAt: "2024-03-31T09:03:25.000Z",
      spec: { requested: { gpus: 1 } },
    });
    // Only the GPU was asked for: no memory or CPU request is invented.
    expect(jobs[0].spec.requested.memoryBytes ?? 0).toBe(0);
    expect(jobs[0].spec.requested.cores ?? 0).toBe(0);
    api.remove("pods", running);
    await until("the deleted pod", async () => (await drain()) && jobs.length === 2);
    expect(jobs[1]).toMatchObject({ phase: "ended", outcome: { state: "CANCELLED" } });
  });

  it("spools nothing for a kubelet's normal pod event recorded on GKE", async () => {
    const [failed] = fixture("recorded-openshift-job-pod-failed");
    api.apply("pods", failed);
    const c = await start();
    await until("the pod", async () => (await drain()) && jobs.length === 1);
    const recorded = fixture<CoreV1Event>("recorded-gke-events");
    for (const e of recorded) api.apply("events", e);
    await until("every event seen", () => c.stats().events === recorded.length);
    await c.stop();
    await drain();
    expect(events).toEqual([]);
    expect(jobs).toHaveLength(1);
  });
});
