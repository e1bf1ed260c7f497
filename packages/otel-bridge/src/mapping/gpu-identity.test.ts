import type { UsageSample } from "@jobsight/schemas";
import { validateUsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { decodeObservations } from "../decode/decode-observations.js";
import { decodeObservationsProtobuf } from "../decode/decode-observations-protobuf.js";
import { encodeExportMetricsRequest } from "../encode/encode.js";
import { encodeObservations } from "../encode/encode-observations.js";
import { JobMetricNames as M, SeriesAttributes as S } from "./metric-names.js";

const MiB = 1024 * 1024;
const PARENT = "GPU-7099682b-a20d-2bcc-74ab-b9060454d81e";
const PCI = "00000000:0F:00.0";

// The audit's case: one pod holding two MIG instances of GPU 1, as dcgm-exporter reads them.
const sample: UsageSample = {
  cluster: "k1",
  jobId: "uid-1",
  node: "gpu07",
  time: "2026-12-01T10:00:00.000Z",
  gpus: [
    {
      index: 1,
      uuid: PARENT,
      pciBusId: PCI,
      utilizationPercent: 90,
      memoryUsedBytes: 1000 * MiB,
      memoryTotalBytes: 4864 * MiB,
      mig: { gpuInstanceId: 13, profile: "1g.5gb" },
    },
    {
      index: 1,
      uuid: PARENT,
      pciBusId: PCI,
      utilizationPercent: 10,
      memoryUsedBytes: 2000 * MiB,
      mig: { gpuInstanceId: 14, profile: "1g.5gb", uuid: "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f" },
    },
    {
      index: 0,
      uuid: "GPU-34319582-d595-d1c7-d1d2-179bcfa61660",
      utilizationPercent: 93,
      memoryUsedBytes: 5,
    },
  ],
};

const byDevice = (gpus: UsageSample["gpus"]) =>
  [...(gpus ?? [])].sort(
    (a, b) => a.index - b.index || (a.mig?.gpuInstanceId ?? -1) - (b.mig?.gpuInstanceId ?? -1),
  );

describe("MIG instances on the wire", () => {
  it("is a valid sample", () => {
    expect(validateUsageSample(sample)).toEqual({ ok: true, value: sample });
  });

  it("keeps two instances of one GPU apart, each with its own figures, through JSON and protobuf", () => {
    const request = encodeObservations([sample]);
    const json = decodeObservations(request, { cluster: "k1" });
    const proto = decodeObservationsProtobuf(encodeExportMetricsRequest(request), { cluster: "k1" });
    for (const out of [json, proto]) {
      expect(out.rejected.count).toBe(0);
      expect(out.samples).toHaveLength(1);
      expect(byDevice(out.samples[0].gpus)).toEqual(byDevice(sample.gpus));
    }
  });

  it("names each instance by an hw.id of its own, with hw.parent its GPU", () => {
    const request = encodeObservations([sample]);
    const metric = request.resourceMetrics[0].scopeMetrics[0].metrics.find(
      (m) => m.name === M.gpuMemoryUsage,
    )!;
    const attrs = metric.gauge!.dataPoints.map((p) =>
      Object.fromEntries(p.attributes.map((a) => [a.key, Object.values(a.value)[0]])),
    );
    expect(attrs.map((a) => a[S.gpuUuid])).toEqual([
      `${PARENT}/gi13`,
      "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f",
      "GPU-34319582-d595-d1c7-d1d2-179bcfa61660",
    ]);
    expect(attrs[0]).toMatchObject({ [S.gpuParent]: PARENT, [S.migProfile]: "1g.5gb" });
    expect(attrs[2][S.gpuParent]).toBeUndefined();
  });

  it("keeps them apart under the 0.1 names too (the MIG UUID, carried by hw.id, is not sent there)", () => {
    const out = decodeObservations(encodeObservations([sample], { names: "legacy" }), { cluster: "k1" });
    const gpus = byDevice(out.samples[0].gpus);
    expect(gpus.map((g) => [g.index, g.uuid, g.mig, g.memoryUsedBytes])).toEqual([
      [0, "GPU-34319582-d595-d1c7-d1d2-179bcfa61660", undefined, 5],
      [1, PARENT, { gpuInstanceId: 13, profile: "1g.5gb" }, 1000 * MiB],
      [1, PARENT, { gpuInstanceId: 14, profile: "1g.5gb" }, 2000 * MiB],
    ]);
  });
});
