import type { UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { decodeObservations } from "../decode/decode-observations.js";
import { scalarOf } from "../mapping/attribute-values.js";
import { AggregateMetricNames as A } from "../mapping/metric-names.js";
import type { ExportMetricsServiceRequest } from "../otlp/otlp-types.js";
import { encodeAggregatedObservations } from "./aggregate-observations.js";

const sample = (over: Partial<UsageSample>): UsageSample => ({
  cluster: "hpc1",
  jobId: "1",
  node: "n1",
  user: "alice",
  time: "2026-12-02T16:30:10.000Z",
  ...over,
});

/** metric name -> list of [attributes, value] */
function series(request: ExportMetricsServiceRequest) {
  const out: Record<string, Array<[Record<string, unknown>, number]>> = {};
  for (const m of request.resourceMetrics[0].scopeMetrics[0].metrics) {
    out[m.name] = m.gauge!.dataPoints.map((p) => [
      Object.fromEntries(p.attributes.map((kv) => [kv.key, scalarOf(kv.value)])),
      p.asInt !== undefined ? Number(p.asInt) : p.asDouble!,
    ]);
  }
  return out;
}

describe("encodeAggregatedObservations", () => {
  it("sums jobs per user and node without counting a job's steps twice or keeping job ids", () => {
    const samples = [
      sample({
        jobId: "1",
        memory: { currentBytes: 100, limitBytes: 1000 },
        pids: 2,
        gpus: [{ index: 0, utilizationPercent: 50, memoryUsedBytes: 10 }],
      }),
      sample({ jobId: "1", step: "0", memory: { currentBytes: 90 }, pids: 1 }), // inside the whole-job reading
      sample({
        jobId: "1",
        time: "2026-12-02T16:30:40.000Z",
        memory: { currentBytes: 150, limitBytes: 1000 },
        pids: 2,
        gpus: [{ index: 0, utilizationPercent: 70, memoryUsedBytes: 30 }],
      }),
      sample({ jobId: "2", step: "0", memory: { currentBytes: 5 } }),
      sample({
        jobId: "2",
        step: "1",
        memory: { currentBytes: 7 },
        gpus: [{ index: 1, utilizationPercent: 10, memoryUsedBytes: 1 }],
      }),
      sample({ jobId: "3", user: "bob", memory: { currentBytes: 1 } }),
      sample({ jobId: "4", time: "2026-12-02T16:31:10.000Z", memory: { currentBytes: 4 } }), // next window
    ];
    const request = encodeAggregatedObservations(samples, { windowMs: 60_000 });
    const s = series(request);
    const alice = { "user.name": "alice", "host.name": "n1" };
    expect(s[A.jobs]).toEqual([
      [alice, 2],
      [{ "user.name": "bob", "host.name": "n1" }, 1],
      [alice, 1],
    ]);
    expect(s[A.memoryUsage]).toEqual([
      [alice, 150 + 5 + 7],
      [{ "user.name": "bob", "host.name": "n1" }, 1],
      [alice, 4],
    ]);
    expect(s[A.memoryLimit]).toEqual([[alice, 1000]]);
    expect(s[A.gpuCount]).toEqual([[alice, 2]]);
    expect(s[A.gpuUtilization]).toEqual([[alice, 0.4]]);
    expect(s[A.gpuMemoryUsage]).toEqual([[alice, 31]]);
    expect(JSON.stringify(request, (_, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain(
      "jobsight.job.id",
    );
    const times = request.resourceMetrics[0].scopeMetrics[0].metrics[0].gauge!.dataPoints.map(
      (p) => p.timeUnixNano,
    );
    expect(times[0]).toBe(1_796_229_040_000_000_000n); // the latest sample of the window
  });

  it("groups by partition through the caller's lookup, and Jobsight's receiver refuses aggregates", () => {
    const samples = [
      sample({ jobId: "1", pids: 1 }),
      sample({ jobId: "2", node: "n2", pids: 3 }),
      sample({ jobId: "3", pids: 5 }),
    ];
    const partitionOf = (s: UsageSample) => (s.jobId === "3" ? "gpu" : "cpu");
    const request = encodeAggregatedObservations(samples, { groupBy: ["partition"], partitionOf });
    expect(series(request)[A.processCount]).toEqual([
      [{ "jobsight.partition": "cpu" }, 4],
      [{ "jobsight.partition": "gpu" }, 5],
    ]);
    const decoded = decodeObservations(request);
    expect(decoded.samples).toEqual([]);
    expect(decoded.rejected.count).toBe(4);
  });
});
