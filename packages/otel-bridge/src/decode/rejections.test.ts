import { describe, expect, it } from "vitest";
import { usageSamples } from "../../test/usage-samples.js";
import { encodeExportMetricsRequest } from "../encode/encode.js";
import { encodeObservations } from "../encode/encode-observations.js";
import { usageSampleKey } from "../mapping/sample-key.js";
import { decodeObservations } from "./decode-observations.js";
import { decodeObservationsProtobuf } from "./decode-observations-protobuf.js";

function pointsOf(request: ReturnType<typeof encodeObservations>): number {
  let n = 0;
  for (const rm of request.resourceMetrics)
    for (const sm of rm.scopeMetrics)
      for (const m of sm.metrics) n += (m.gauge ?? m.sum)?.dataPoints.length ?? 0;
  return n;
}

describe("rejected samples", () => {
  it("names each sample that lost points by its key, with its count and first reason, in both decoders", () => {
    const samples = usageSamples();
    const foreign = samples.filter((s) => s.cluster !== "hpc1");
    expect(foreign.length).toBeGreaterThan(0);
    const request = encodeObservations(samples);
    const foreignPoints = pointsOf(encodeObservations(foreign));

    const twoStep = decodeObservations(request, { cluster: "hpc1" });
    const fused = decodeObservationsProtobuf(encodeExportMetricsRequest(request), { cluster: "hpc1" });

    const expected = foreign.map((s) => ({
      key: usageSampleKey(s),
      points: expect.any(Number),
      reason: "cluster hpc2 is not this sender's cluster (hpc1)",
    }));
    for (const decoded of [twoStep, fused]) {
      expect(decoded.rejectedSamples).toEqual(expected);
      expect(decoded.rejectedSamples.reduce((n, s) => n + s.points, 0)).toBe(foreignPoints);
      expect(decoded.rejected.count).toBe(foreignPoints);
      expect(decoded.samples).toHaveLength(samples.length - foreign.length);
    }
  });

  it("names the sample a valueless point and its dropped section belong to, and skips an unknown metric's points", () => {
    const [first] = usageSamples();
    const request = encodeObservations([first]);
    const metric = request.resourceMetrics[0].scopeMetrics[0].metrics[0];
    const points = (metric.gauge ?? metric.sum)!.dataPoints;
    const template = { ...points[0] };
    points[0].asInt = undefined;
    points[0].asDouble = undefined;
    // An unknown metric's points are skipped: neither rejected nor named under a sample.
    request.resourceMetrics[0].scopeMetrics[0].metrics.push({
      name: "site.unknown",
      description: "",
      unit: "",
      metadata: [],
      gauge: { dataPoints: [{ ...template, asDouble: 1, asInt: undefined }] },
    });

    const decoded = decodeObservationsProtobuf(encodeExportMetricsRequest(request));
    // The valueless point, and the rest of the section it leaves without a required field.
    expect(decoded.rejected.count).toBeGreaterThan(2);
    expect(decoded.rejectedSamples).toEqual([
      {
        key: usageSampleKey(first),
        points: decoded.rejected.count,
        reason: `${metric.name}: point has no value`,
      },
    ]);
    expect(decoded.skipped).toEqual({ count: 1, byReason: { unknown_metric: { "site.unknown": 1 } } });
    expect(decodeObservations(request).rejectedSamples).toEqual(decoded.rejectedSamples);
  });
});
