import type { UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { usageSamples } from "../../test/usage-samples.js";
import { decodeObservations } from "../decode/decode-observations.js";
import { decodeObservationsProtobuf } from "../decode/decode-observations-protobuf.js";
import { encodeExportMetricsRequest } from "../encode/encode.js";
import { encodeObservations } from "../encode/encode-observations.js";
import type { ExportMetricsServiceRequest, Metric } from "../otlp/otlp-types.js";
import { scalarOf } from "./attribute-values.js";

const withProgress = (progress: UsageSample["progress"]): UsageSample => ({
  ...usageSamples()[1],
  progress,
});

const metricsOf = (request: ExportMetricsServiceRequest): Metric[] =>
  request.resourceMetrics[0].scopeMetrics[0].metrics;

const progressPoints = (request: ExportMetricsServiceRequest) =>
  metricsOf(request)
    .filter((m) => m.name.startsWith("jobsight.job.progress."))
    .map((m) => ({
      name: m.name,
      unit: m.unit,
      points: m.gauge!.dataPoints.map((p) => [
        p.asDouble,
        scalarOf(p.attributes.find((a) => a.key === "jobsight.job.progress.unit")?.value ?? {}),
      ]),
    }));

describe("job progress over OTLP", () => {
  it("goes out as two jobsight.job.progress.* gauges, each point naming the unit, under either name set", () => {
    const sample = withProgress({ done: 1_200, total: 5_000, unit: "step" });
    for (const names of ["conventions", "legacy"] as const) {
      expect(progressPoints(encodeObservations([sample], { names }))).toEqual([
        { name: "jobsight.job.progress.done", unit: "{unit}", points: [[1_200, "step"]] },
        { name: "jobsight.job.progress.limit", unit: "{unit}", points: [[5_000, "step"]] },
      ]);
    }
  });

  it("comes back onto the sample from OTLP objects and protobuf, with or without a unit", () => {
    for (const progress of [
      { done: 1_200, total: 5_000, unit: "step" },
      { done: 37.5, total: 100 },
    ]) {
      const sample = withProgress(progress);
      for (const names of ["conventions", "legacy"] as const) {
        const request = encodeObservations([sample], { names });
        for (const decoded of [
          decodeObservations(request),
          decodeObservationsProtobuf(encodeExportMetricsRequest(request)),
        ]) {
          expect(decoded.rejected.count).toBe(0);
          expect(decoded.samples).toEqual([sample]);
        }
      }
    }
  });

  it("refuses a zero total or half a reading, keeping the rest of the sample", () => {
    const request = encodeObservations([withProgress({ done: 10, total: 40 })]);
    const total = metricsOf(request).find((m) => m.name === "jobsight.job.progress.limit")!;
    total.gauge!.dataPoints[0].asDouble = 0;
    const zero = decodeObservations(request);
    expect(zero.rejected.reasons).toEqual({
      "jobsight.job.progress.limit: value is 0": 1,
      "progress needs both jobsight.job.progress.done and jobsight.job.progress.limit": 1,
    });
    expect(zero.samples).toEqual([usageSamples()[1]]);

    const metrics = metricsOf(request);
    metrics.splice(metrics.indexOf(total), 1);
    const half = decodeObservations(request);
    expect(half.rejected.reasons).toEqual({
      "progress needs both jobsight.job.progress.done and jobsight.job.progress.limit": 1,
    });
    expect(half.samples).toEqual([usageSamples()[1]]);
  });
});
