import { encodeExportMetricsRequest, encodeObservations } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postOtlp } from "./otlp-clients.js";
import { type OtlpFixture, startOtlpFixture, TOKENS } from "./otlp-fixture.js";

// One job holding two MIG instances of one GPU: the receiver must store two devices, each with
// its own figures, not one GPU whose readings the second instance overwrote.

const MiB = 1024 * 1024;
const PARENT = "GPU-7099682b-a20d-2bcc-74ab-b9060454d81e";
const instance = (gpuInstanceId: number, util: number, usedMiB: number) => ({
  index: 1,
  uuid: PARENT,
  pciBusId: "00000000:0F:00.0",
  utilizationPercent: util,
  memoryUsedBytes: usedMiB * MiB,
  memoryTotalBytes: 4864 * MiB,
  mig: { gpuInstanceId, profile: "1g.5gb" },
});
const sample: UsageSample = {
  cluster: "hpc1",
  jobId: "4242",
  node: "gpu07",
  time: "2026-12-01T10:00:00.000Z",
  gpus: [instance(13, 90, 1000), instance(14, 10, 2000)],
};

let fx: OtlpFixture;
beforeAll(async () => {
  fx = await startOtlpFixture("otlp_mig_instances");
});
afterAll(async () => {
  await fx?.close();
});

describe("MIG instances received over OTLP", () => {
  it("are stored as two devices of the job, each with its own utilisation and memory", async () => {
    const body = encodeExportMetricsRequest(encodeObservations([sample], { scheduler: "slurm" }));
    const res = await postOtlp(fx.receivers.http.url, body, {
      authorization: `Bearer ${TOKENS.hpc1}`,
      "content-type": "application/x-protobuf",
    });
    expect(res.status).toBe(200);
    const { samples } = await fx.storage.storage.samples.series("hpc1", "4242");
    expect(samples).toHaveLength(1);
    const gpus = [...(samples[0].gpus ?? [])].sort((a, b) => a.mig!.gpuInstanceId - b.mig!.gpuInstanceId);
    expect(gpus).toEqual(sample.gpus);
    const { rows } = await fx.storage.storage.pool.query<{ mem: string; util: number }>(
      "SELECT gpu_memory_bytes AS mem, gpu_utilization AS util FROM usage_samples WHERE job_id = '4242'",
    );
    // The job's GPU memory is both instances' (not the last one's), its utilisation their mean.
    expect(rows).toEqual([{ mem: String(3000 * MiB), util: 50 }]);
  });
});
