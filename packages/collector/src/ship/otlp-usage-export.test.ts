import { createExportMetricsResponse, rejectedSampleKey } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas/light";
import { describe, expect, it } from "vitest";
import { prepareUsageExport, rejectedSamplesOf } from "./otlp-usage-export.js";

const sample = (i: number): UsageSample => ({
  cluster: "hpc1",
  jobId: String(i),
  node: "n1",
  time: "2026-12-01T10:00:00Z",
  memory: { currentBytes: 1000 + i, limitBytes: 4096 },
});
const indexes = (rejections: { index: number }[]) => rejections.map((r) => r.index);

describe("rejectedSamplesOf", () => {
  const samples = [sample(0), sample(1), sample(2), sample(3)];
  const usage = prepareUsageExport(samples);

  it("counts two points per sample here, so the figures below are exact", () => {
    expect(usage.points).toBe(8);
  });

  it("rejects nothing on full success or on a warning that rejected no point", () => {
    expect(rejectedSamplesOf(usage, { response: {}, rejectedSamples: undefined })).toEqual([]);
    const warning = createExportMetricsResponse(0, "deprecated metric name");
    expect(rejectedSamplesOf(usage, { response: warning, rejectedSamples: undefined })).toEqual([]);
  });

  it("rejects just the named samples when their points account for the count", () => {
    const answer = {
      response: createExportMetricsResponse(3, "3 data points rejected: …"),
      rejectedSamples: [
        { key: rejectedSampleKey(samples[3]), points: 2, reason: "invalid sample: /memory: …" },
        { key: rejectedSampleKey(samples[1]), points: 1, reason: "jobsight.job.memory.limit: …" },
      ],
    };
    const rejected = rejectedSamplesOf(usage, answer);
    expect(indexes(rejected)).toEqual([1, 3]);
    expect(rejected[0]).toEqual({
      index: 1,
      path: "/samples/1",
      message: "1 data point rejected: jobsight.job.memory.limit: …",
      code: "OTLP_PARTIAL_SUCCESS",
    });
  });

  it("sets aside every unnamed sample too when the named ones leave points unaccounted for", () => {
    const answer = {
      response: createExportMetricsResponse(3, "3 data points rejected"),
      rejectedSamples: [{ key: rejectedSampleKey(samples[2]), points: 1, reason: "r" }],
    };
    const rejected = rejectedSamplesOf(usage, answer);
    expect(indexes(rejected)).toEqual([0, 1, 2, 3]);
    expect(rejected[0].message).toMatch(/^the receiver rejected 2 data points of this export without naming/);
  });

  it("rejects both copies of a sample sent twice, counting its named points once", () => {
    const twice = prepareUsageExport([sample(0), sample(1), sample(0)]);
    const answer = {
      response: createExportMetricsResponse(1, "1 data point rejected"),
      rejectedSamples: [{ key: rejectedSampleKey(sample(0)), points: 1, reason: "r" }],
    };
    expect(indexes(rejectedSamplesOf(twice, answer))).toEqual([0, 2]);
  });
});

describe("prepareUsageExport names", () => {
  const withGpu: UsageSample = {
    ...sample(7),
    gpus: [{ index: 0, uuid: "GPU-1", utilizationPercent: 50, memoryUsedBytes: 1 }],
    processes: [{ pid: 9, command: "python", rssBytes: 10, state: "R" }],
  };
  const names = (s: readonly UsageSample[], options?: Parameters<typeof prepareUsageExport>[1]) => {
    const metrics = prepareUsageExport(s, options).request!.resourceMetrics[0].scopeMetrics[0].metrics;
    return {
      metrics: metrics.map((m) => m.name),
      keys: [
        ...new Set(
          metrics.flatMap((m) =>
            (m.gauge ?? m.sum)!.dataPoints.flatMap((p) => p.attributes.map((a) => a.key)),
          ),
        ),
      ],
    };
  };

  it("sends the semantic-convention names by default", () => {
    const { metrics, keys } = names([withGpu]);
    expect(metrics).toEqual([
      "container.memory.usage",
      "jobsight.job.memory.limit",
      "hw.gpu.utilization",
      "hw.gpu.memory.usage",
      "process.memory.usage",
    ]);
    expect(keys).toEqual(expect.arrayContaining(["jobsight.job.id", "hw.id", "hw.type", "process.state"]));
    expect(keys).not.toContain("jobsight.gpu.uuid");
  });

  it("sends the 0.1 jobsight.* names with the compatibility option", () => {
    const { metrics, keys } = names([withGpu], { names: "legacy" });
    expect(metrics).toEqual([
      "jobsight.job.memory.usage",
      "jobsight.job.memory.limit",
      "jobsight.job.gpu.utilization",
      "jobsight.job.gpu.memory.usage",
      "jobsight.job.process.memory.usage",
    ]);
    expect(keys).toEqual(expect.arrayContaining(["jobsight.gpu.uuid", "jobsight.process.state"]));
    expect(keys).not.toContain("hw.id");
  });
});
