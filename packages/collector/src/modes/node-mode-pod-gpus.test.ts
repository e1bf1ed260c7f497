import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateUsageSample } from "@jobsight/schemas";
import type { UsageSample } from "@jobsight/schemas/light";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../log/logger.js";
import { NvidiaSmi } from "../sources/gpu/nvidia-smi.js";
import { ProcReader } from "../sources/proc-reader.js";
import { DiskSpool } from "../spool/disk-spool.js";
import { CgroupTree } from "../test-support/cgroup-tree.js";
import { fakeCommand } from "../test-support/fake-command.js";
import { startFakeKubelet } from "../test-support/fake-kubelet.js";
import { ProcTree } from "../test-support/proc-tree.js";
import { takeSpooled } from "../test-support/spool-contents.js";
import { NodeMode } from "./node-mode.js";

const FIXTURES = join(import.meta.dirname, "..", "sources", "kubelet", "fixtures");
const listReply = JSON.parse(readFileSync(join(FIXTURES, "list-pod-resources.json"), "utf8"));

// The fixture's pods as the cgroup tree and the kubelet's log folders name them.
const PODS = {
  plugin: {
    uid: "7e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b",
    ns: "kube-system",
    name: "nvidia-device-plugin-daemonset-4kq9t",
  },
  train: { uid: "0b9d7c3e-5a1f-4e2b-8c6d-7f8e9a0b1c2d", ns: "ml", name: "train-llama-worker-0" },
  infer: { uid: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", ns: "serving", name: "infer-resnet-6b7d9f-xk2lp" },
  etl: { uid: "5d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f8a", ns: "batch", name: "etl-nightly-28476150-q8v7z" },
};
const UUID = {
  g0: "GPU-8f6c2e41-3b7a-4d2e-9c1f-5a0b7e3d2c19",
  g1: "GPU-2d4a6c8e-1f3b-4a5c-8e7d-9b0a1c2d3e4f",
  g2: "GPU-6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
};

async function spooledSamples(spool: DiskSpool): Promise<UsageSample[]> {
  return (await takeSpooled(spool)).samples;
}

describe("NodeMode on a Kubernetes node", () => {
  let work: string;
  let tree: CgroupTree;
  let proc: ProcTree;
  let spool: DiskSpool;
  let gpus: NvidiaSmi;
  const cleanups: (() => unknown)[] = [];
  const lines: string[] = [];

  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), "jobsight-k8s-node-"));
    tree = new CgroupTree();
    proc = new ProcTree();
    spool = await DiskSpool.open({ dir: join(work, "spool") });
    lines.length = 0;
    let pid = 5000;
    for (const [key, pod] of Object.entries(PODS)) {
      tree.pod(pod.uid, { qos: key === "train" ? "guaranteed" : "burstable", containers: ["a1b2c3"] });
      mkdirSync(join(work, "pods", `${pod.ns}_${pod.name}_${pod.uid}`), { recursive: true });
      const slice =
        key === "train"
          ? `kubepods-pod${pod.uid.replace(/-/g, "_")}.slice`
          : `kubepods-burstable.slice/kubepods-burstable-pod${pod.uid.replace(/-/g, "_")}.slice`;
      const cgroup = `0::/kubepods.slice/${slice}/cri-containerd-a1b2c3.scope\n`;
      proc.add({
        pid: key === "infer" ? 5120 : pid++,
        comm: key === "infer" ? "tritonserver" : "python",
        cgroup,
      });
    }
    // The GPUs nvidia-smi prints, through the production command path: the CSV fixtures.
    copyFileSync(join(FIXTURES, "nvidia-smi-compute-apps.csv"), join(work, "compute-apps.csv"));
    const smi = fakeCommand(
      "nvidia-smi",
      `case "$*" in
  *compute-apps*) cat "${join(work, "compute-apps.csv")}" ;;
  *) while :; do cat "${join(FIXTURES, "nvidia-smi-query-gpu.csv")}"; sleep 0.05; done ;;
esac`,
    );
    gpus = new NvidiaSmi({ command: smi.path, intervalMs: 1000 });
    cleanups.push(() => gpus.stop(), smi.cleanup);
    gpus.start();
    await vi.waitFor(() => expect(gpus.latest()).toHaveLength(4), { timeout: 5000 });
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
    await spool.close();
    tree.cleanup();
    proc.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  const nodeMode = (podResourcesSocket: string) => {
    const mode = new NodeMode({
      cluster: "k8s1",
      node: "gpu-node-3",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      topProcesses: 0,
      gpus,
      podResourcesSocket,
      podLogsDir: join(work, "pods"),
      logger: createLogger({ write: (l) => lines.push(l) }),
      trimHeap: false,
    });
    cleanups.unshift(() => mode.stop());
    return mode;
  };
  const gpusOf = (samples: UsageSample[], uid: string) =>
    samples.find((s) => s.jobId === uid)?.gpus?.map((g) => [g.index, g.uuid, g.utilizationPercent]);

  it("samples the GPUs the kubelet gave each pod, idle ones included, on the pod's job", async () => {
    const kubelet = await startFakeKubelet(join(work, "kubelet.sock"), () => listReply);
    cleanups.push(() => kubelet.stop());
    const mode = nodeMode(kubelet.socketPath);
    await mode.collect();
    const samples = await spooledSamples(spool);
    expect(samples.map((s) => s.jobId).sort()).toEqual(
      Object.values(PODS)
        .map((p) => p.uid)
        .sort(),
    );
    // Reserved and idle: no process on either GPU, read at 0 % for the pod that holds them.
    expect(gpusOf(samples, PODS.train.uid)).toEqual([
      [0, UUID.g0, 0],
      [1, UUID.g1, 0],
    ]);
    expect(gpusOf(samples, PODS.infer.uid)).toEqual([[2, UUID.g2, 83]]);
    expect(gpusOf(samples, PODS.etl.uid)).toBeUndefined();
    expect(gpusOf(samples, PODS.plugin.uid)).toBeUndefined();
    for (const s of samples) expect(validateUsageSample(s)).toMatchObject({ ok: true });
    expect(kubelet.calls()).toBe(1);
  });

  it("adds a GPU to another pod whose process runs there, and keeps it on the pod that holds it", async () => {
    const kubelet = await startFakeKubelet(join(work, "kubelet.sock"), () => listReply);
    cleanups.push(() => kubelet.stop());
    // pid 5002 is the ETL pod's process, on a GPU the kubelet gave the training pod.
    appendFileSync(join(work, "compute-apps.csv"), `5002, ${UUID.g0}, 1200\n`);
    const mode = nodeMode(kubelet.socketPath);
    await mode.collect();
    const samples = await spooledSamples(spool);
    expect(gpusOf(samples, PODS.etl.uid)).toEqual([[0, UUID.g0, 0]]);
    expect(gpusOf(samples, PODS.train.uid)).toEqual([
      [0, UUID.g0, 0],
      [1, UUID.g1, 0],
    ]);
  });

  it("keeps to the processes on the GPUs when the kubelet has no socket, says so once and never fails a round", async () => {
    const mode = nodeMode(join(work, "no-such.sock"));
    await mode.collect();
    await mode.collect();
    const samples = await spooledSamples(spool);
    const last = (uid: string) => samples.filter((s) => s.jobId === uid).at(-1)!;
    expect(gpusOf([last(PODS.infer.uid)], PODS.infer.uid)).toEqual([[2, UUID.g2, 83]]);
    expect(last(PODS.train.uid).gpus).toBeUndefined();
    expect(mode.stats()).toMatchObject({ rounds: 2, failedRounds: 0 });
    const said = lines.map((l) => JSON.parse(l)).filter((l) => /kubelet/.test(l.msg));
    expect(said).toMatchObject([{ level: "warn", error: { code: "KUBELET_UNAVAILABLE" } }]);
  });
});
