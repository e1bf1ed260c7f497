import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeObservations, encodeObservations } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas/light";
import { afterEach, expect, it } from "vitest";
import { DcgmExporter } from "./dcgm-exporter.js";

// The audit's case: one pod holding two MIG instances of one GPU. Both come out of dcgm-exporter
// with their parent's index and UUID; over OTLP they must stay two devices with their own figures.

const MiB = 1024 * 1024;
const labels = (gi: string) =>
  `gpu="1",UUID="GPU-7099682b-a20d-2bcc-74ab-b9060454d81e",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA A100-SXM4-40GB",GPU_I_PROFILE="1g.5gb",GPU_I_ID="${gi}",Hostname="gpu07",container="server",namespace="ml",pod="infer-1"`;
const body = `${[
  `DCGM_FI_DEV_FB_USED{${labels("13")}} 1000`,
  `DCGM_FI_DEV_FB_FREE{${labels("13")}} 3000`,
  `DCGM_FI_PROF_GR_ENGINE_ACTIVE{${labels("13")}} 0.9`,
  `DCGM_FI_DEV_FB_USED{${labels("14")}} 2000`,
  `DCGM_FI_DEV_FB_FREE{${labels("14")}} 2000`,
  `DCGM_FI_PROF_GR_ENGINE_ACTIVE{${labels("14")}} 0.1`,
].join("\n")}\n`;

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

it("keeps a pod's two MIG instances of one GPU apart from the scrape to the decoded sample", async () => {
  server = createServer((_req, res) => res.end(body));
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const dcgm = new DcgmExporter({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`,
  });
  await dcgm.scrape();
  const gpus = dcgm.podDevices().get("ml/infer-1") ?? [];
  expect(gpus.map((g) => g.mig)).toEqual([
    { gpuInstanceId: 13, profile: "1g.5gb" },
    { gpuInstanceId: 14, profile: "1g.5gb" },
  ]);
  const sample: UsageSample = {
    cluster: "k1",
    jobId: "u1",
    node: "gpu07",
    time: "2026-12-01T10:00:00.000Z",
    gpus,
  };
  const out = decodeObservations(encodeObservations([sample]), { cluster: "k1" });
  expect(out.rejected.count).toBe(0);
  const decoded = [...(out.samples[0].gpus ?? [])].sort(
    (a, b) => a.mig!.gpuInstanceId - b.mig!.gpuInstanceId,
  );
  expect(decoded.map((g) => [g.mig?.gpuInstanceId, g.utilizationPercent, g.memoryUsedBytes])).toEqual([
    [13, 90, 1000 * MiB],
    [14, 10, 2000 * MiB],
  ]);
});
