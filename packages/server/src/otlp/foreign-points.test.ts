import {
  decodeObservations,
  type ExportMetricsServiceRequest,
  encodeObservations,
} from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { removeForeignPoints } from "./foreign-points.js";

const sample = (cluster: string, jobId: string): UsageSample => ({
  cluster,
  jobId,
  node: "n1",
  time: "2026-12-01T10:00:00.000Z",
  memory: { currentBytes: 1000, peakBytes: 2000 },
  cpu: { usageSeconds: 3 },
});

function pointCount(request: ExportMetricsServiceRequest): number {
  let n = 0;
  for (const rm of request.resourceMetrics)
    for (const sm of rm.scopeMetrics)
      for (const m of sm.metrics) n += (m.gauge ?? m.sum)?.dataPoints.length ?? 0;
  return n;
}

describe("removeForeignPoints", () => {
  it("keeps the token's own cluster and counts every point of another one", () => {
    const request = encodeObservations([sample("hpc1", "1"), sample("hpc2", "2"), sample("hpc3", "3")]);
    const before = pointCount(request);
    const foreign = removeForeignPoints(request, "hpc1");
    expect(foreign.count).toBe((before * 2) / 3);
    expect(Object.fromEntries(foreign.byCluster)).toEqual({ hpc2: before / 3, hpc3: before / 3 });
    expect(pointCount(request)).toBe(before / 3);
    const { samples, rejected } = decodeObservations(request);
    expect(samples.map((s) => s.cluster)).toEqual(["hpc1"]);
    expect(rejected.count).toBe(0);
  });

  it("lets a point's own cluster attribute win over the resource's, as the decoder does", () => {
    const request = encodeObservations([sample("hpc1", "1")]);
    const metric = request.resourceMetrics[0].scopeMetrics[0].metrics[0];
    const point = (metric.gauge ?? metric.sum)!.dataPoints[0];
    point.attributes.push({ key: "jobsight.cluster", value: { stringValue: "hpc2" } });
    const foreign = removeForeignPoints(request, "hpc1");
    expect(foreign.count).toBe(1);
    expect(Object.fromEntries(foreign.byCluster)).toEqual({ hpc2: 1 });
  });

  it("leaves points without a cluster for the decoder to reject, and changes nothing when all are own", () => {
    const request = encodeObservations([sample("hpc1", "1")]);
    const attributes = request.resourceMetrics[0].resource!.attributes;
    const own = structuredClone(request);
    expect(removeForeignPoints(own, "hpc1").count).toBe(0);
    expect(own).toEqual(request);
    request.resourceMetrics[0].resource!.attributes = attributes.filter(
      (kv) => kv.key !== "jobsight.cluster",
    );
    expect(removeForeignPoints(request, "hpc1").count).toBe(0);
    expect(decodeObservations(request).rejected.count).toBe(pointCount(request));
  });
});
