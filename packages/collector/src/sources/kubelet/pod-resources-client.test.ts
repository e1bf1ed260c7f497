import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KubeletError } from "../../errors.js";
import { type FakeKubelet, startFakeKubelet } from "../../test-support/fake-kubelet.js";
import { PodResourcesClient } from "./pod-resources-client.js";

const fixture = JSON.parse(
  readFileSync(join(import.meta.dirname, "fixtures", "list-pod-resources.json"), "utf8"),
);

describe("PodResourcesClient", () => {
  let dir: string;
  let kubelet: FakeKubelet | undefined;
  let client: PodResourcesClient | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-kubelet-"));
  });
  afterEach(async () => {
    client?.close();
    await kubelet?.stop();
    kubelet = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists every pod with its containers' devices from a kubelet serving PodResources v1", async () => {
    kubelet = await startFakeKubelet(join(dir, "kubelet.sock"), () => fixture);
    client = new PodResourcesClient({ socketPath: kubelet.socketPath });
    const pods = await client.list();
    expect(pods.map((p) => `${p.namespace}/${p.name}`)).toEqual([
      "kube-system/nvidia-device-plugin-daemonset-4kq9t",
      "ml/train-llama-worker-0",
      "serving/infer-resnet-6b7d9f-xk2lp",
      "batch/etl-nightly-28476150-q8v7z",
    ]);
    expect(pods[1].containers).toEqual([
      {
        name: "trainer",
        devices: [
          {
            resourceName: "nvidia.com/gpu",
            deviceIds: [
              "GPU-8f6c2e41-3b7a-4d2e-9c1f-5a0b7e3d2c19",
              "GPU-2d4a6c8e-1f3b-4a5c-8e7d-9b0a1c2d3e4f",
            ],
          },
          { resourceName: "rdma/hca_shared_devices_a", deviceIds: ["rdma_shared_device_a"] },
        ],
      },
      { name: "log-shipper", devices: [] },
    ]);
    expect(pods[3].containers).toEqual([{ name: "etl", devices: [] }]);
    // The channel stays open: a second round asks again over it.
    await client.list();
    expect(kubelet.calls()).toBe(2);
  });

  it("rejects with KUBELET_UNAVAILABLE when there is no socket", async () => {
    client = new PodResourcesClient({ socketPath: join(dir, "missing.sock") });
    const error = await client.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeletError);
    expect(error).toMatchObject({
      code: "KUBELET_UNAVAILABLE",
      message: expect.stringContaining("missing.sock"),
    });
  });

  it("rejects with the kubelet's status when List fails", async () => {
    kubelet = await startFakeKubelet(join(dir, "kubelet.sock"), () => ({
      code: status.RESOURCE_EXHAUSTED,
      details: "rejected by rate limit",
    }));
    client = new PodResourcesClient({ socketPath: kubelet.socketPath });
    await expect(client.list()).rejects.toMatchObject({
      code: "KUBELET_UNAVAILABLE",
      message: expect.stringMatching(/RESOURCE_EXHAUSTED: rejected by rate limit/),
    });
  });
});
