import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../log/logger.js";
import { type FakeKubelet, startFakeKubelet } from "../../test-support/fake-kubelet.js";
import { podUidsByName } from "../kubelet/pod-log-dirs.js";
import { KubernetesGpuAllocation, podGpuRefs } from "./kubernetes-gpu-allocation.js";

const fixture = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "kubelet", "fixtures", "list-pod-resources.json"), "utf8"),
);
const TRAIN = "0b9d7c3e-5a1f-4e2b-8c6d-7f8e9a0b1c2d";
const INFER = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";

describe("podGpuRefs", () => {
  it("takes NVIDIA GPUs by UUID or index, MIG instances by MIG UUID, AMD GPUs by PCI address, and nothing else", () => {
    expect(
      podGpuRefs([
        {
          resourceName: "nvidia.com/gpu",
          deviceIds: ["GPU-8f6c2e41-3b7a", "GPU-2d4a6c8e-1f3b::3", "GPU-2d4a6c8e-1f3b::4"],
        },
        { resourceName: "nvidia.com/gpu", deviceIds: ["2", "MIG-5a6b7c8d-0000-1111-2222-333344445555"] },
        {
          resourceName: "nvidia.com/mig-1g.10gb",
          deviceIds: ["MIG-0a1b2c3d-4e5f", "MIG-GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f/7/0"],
        },
        // GKE's device plugin names an instance by the parent's device file and its GPU instance.
        { resourceName: "nvidia.com/gpu", deviceIds: ["nvidia1/gi13"] },
        { resourceName: "amd.com/gpu", deviceIds: ["0000:c1:00.0"] },
        { resourceName: "rdma/hca_shared_devices_a", deviceIds: ["rdma_shared_device_a"] },
      ]),
    ).toEqual([
      { uuid: "GPU-8f6c2e41-3b7a" },
      { uuid: "GPU-2d4a6c8e-1f3b" },
      { index: 2 },
      { mig: { uuid: "MIG-5a6b7c8d-0000-1111-2222-333344445555" } },
      {
        mig: {
          uuid: "MIG-GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f/7/0",
          parentUuid: "GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f",
          gpuInstanceId: 7,
        },
      },
      { mig: { parentMinor: 1, gpuInstanceId: 13 } },
      { pciBusId: "0000:c1:00.0" },
    ]);
  });
});

describe("podUidsByName", () => {
  it("reads namespace, name and UID from the kubelet's pod log folders", () => {
    const dir = mkdtempSync(join(tmpdir(), "jobsight-pod-logs-"));
    for (const d of [`ml_train-llama-worker-0_${TRAIN}`, `ml_train-llama-worker-0_${INFER}`, "not-a-pod"])
      mkdirSync(join(dir, d));
    expect(podUidsByName(dir)?.get("ml/train-llama-worker-0")?.sort()).toEqual([TRAIN, INFER].sort());
    expect(podUidsByName(join(dir, "absent"))).toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("KubernetesGpuAllocation", () => {
  let dir: string;
  let kubelet: FakeKubelet | undefined;
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", write: (l) => lines.push(l) });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-kubelet-"));
    lines.length = 0;
  });
  afterEach(async () => {
    await kubelet?.stop();
    kubelet = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives each running pod the GPUs the kubelet lists for its containers, by pod UID", async () => {
    kubelet = await startFakeKubelet(join(dir, "kubelet.sock"), () => fixture);
    const logs = join(dir, "pods");
    for (const d of [
      `ml_train-llama-worker-0_${TRAIN}`,
      // The folder of an earlier pod of the same name, gone from the cgroup tree.
      "ml_train-llama-worker-0_99999999-0000-4000-8000-000000000000",
      `serving_infer-resnet-6b7d9f-xk2lp_${INFER}`,
    ])
      mkdirSync(join(logs, d), { recursive: true });
    const allocation = new KubernetesGpuAllocation({
      socketPath: kubelet.socketPath,
      podLogsDir: logs,
      logger,
    });
    const got = await allocation.read(new Set([TRAIN, INFER]));
    allocation.close();
    expect(got).toEqual(
      new Map([
        [
          TRAIN,
          [
            { uuid: "GPU-8f6c2e41-3b7a-4d2e-9c1f-5a0b7e3d2c19" },
            { uuid: "GPU-2d4a6c8e-1f3b-4a5c-8e7d-9b0a1c2d3e4f" },
          ],
        ],
        [INFER, [{ uuid: "GPU-6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c" }]],
      ]),
    );
  });

  it("resolves to undefined without a socket, says so once, and does not ask when no pod runs", async () => {
    const allocation = new KubernetesGpuAllocation({ socketPath: join(dir, "missing.sock"), logger });
    expect(await allocation.read(new Set())).toEqual(new Map());
    expect(lines).toHaveLength(0);
    expect(await allocation.read(new Set([TRAIN]))).toBeUndefined();
    expect(await allocation.read(new Set([TRAIN]))).toBeUndefined();
    const said = lines.map((l) => JSON.parse(l));
    expect(said).toMatchObject([
      { level: "warn", error: { code: "KUBELET_UNAVAILABLE" }, socket: join(dir, "missing.sock") },
    ]);
  });
});
