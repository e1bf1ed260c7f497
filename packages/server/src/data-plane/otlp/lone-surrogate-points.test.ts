import { encodeExportMetricsRequestJson, encodeObservations } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { dropLoneSurrogatePoints, mergeRejections } from "./lone-surrogate-points.js";

const sample = (jobId: string, node = "n1"): UsageSample => ({
  cluster: "hpc1",
  jobId,
  node,
  time: "2026-12-01T10:00:00Z",
  memory: { currentBytes: 1, peakBytes: 2 },
});

const json = (request: ReturnType<typeof encodeObservations>) =>
  new TextEncoder().encode(encodeExportMetricsRequestJson(request));

const points = (request: ReturnType<typeof encodeObservations>) =>
  request.resourceMetrics.flatMap((rm) =>
    rm.scopeMetrics.flatMap((sm) => sm.metrics.flatMap((m) => (m.gauge ?? m.sum)?.dataPoints ?? [])),
  );

describe("dropLoneSurrogatePoints", () => {
  it("drops the points whose job id or node holds an unpaired surrogate, and counts them by reason", () => {
    const request = encodeObservations([sample("ok"), sample("bad\ud800"), sample("ok2", "n\udc01")]);
    const total = points(request).length;
    const rejected = dropLoneSurrogatePoints(request, json(request));
    expect(rejected.count).toBe(total - points(request).length);
    expect(rejected.count).toBe((total / 3) * 2);
    expect(Object.keys(rejected.reasons).sort()).toEqual([
      "invalid attribute host.name: unpaired UTF-16 surrogate (not storable text)",
      "invalid attribute jobsight.job.id: unpaired UTF-16 surrogate (not storable text)",
    ]);
  });

  it("keeps paired surrogates and unrelated attributes, and skips bodies without an escape", () => {
    const request = encodeObservations([sample("emoji \ud83d\ude00")]);
    request.resourceMetrics[0].resource?.attributes.push({
      key: "site.note",
      value: { stringValue: "\ud800" },
    });
    expect(dropLoneSurrogatePoints(request, json(request)).count).toBe(0);
    const broken = encodeObservations([sample("bad\ud800")]);
    expect(dropLoneSurrogatePoints(broken, new TextEncoder().encode("{}")).count).toBe(0);
  });

  it("merges rejections reason by reason", () => {
    expect(mergeRejections({ count: 2, reasons: { a: 2 } }, { count: 3, reasons: { a: 1, b: 2 } })).toEqual({
      count: 5,
      reasons: { a: 3, b: 2 },
    });
  });
});
