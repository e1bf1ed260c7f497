import { describe, expect, it } from "vitest";
import { usageSamples } from "../../test/usage-samples.js";
import { encodeExportMetricsRequest } from "../encode/encode.js";
import { encodeObservations } from "../encode/encode-observations.js";
import { keyValues, type ScalarAttribute } from "../mapping/attribute-values.js";
import {
  LegacyJobMetricNames,
  JobMetricNames as M,
  OBSERVATION_SCOPE_NAME,
} from "../mapping/metric-names.js";
import { usageSampleKey } from "../mapping/sample-key.js";
import type { ExportMetricsServiceRequest, Metric, NumberDataPoint } from "../otlp/otlp-types.js";
import { decodeObservations, describeRejections } from "./decode-observations.js";
import { decodeObservationsProtobuf } from "./decode-observations-protobuf.js";

const T = 1_796_229_000_000_000_000n;

function point(
  value: { asInt?: bigint; asDouble?: number },
  attributes: Record<string, ScalarAttribute>,
  time = T,
): NumberDataPoint {
  return {
    attributes: keyValues(Object.entries(attributes)),
    startTimeUnixNano: 0n,
    timeUnixNano: time,
    exemplars: [],
    flags: 0,
    ...value,
  };
}

const gauge = (name: string, ...points: NumberDataPoint[]): Metric => ({
  name,
  description: "",
  unit: "",
  metadata: [],
  gauge: { dataPoints: points },
});

const scope = { name: OBSERVATION_SCOPE_NAME, version: "2", attributes: [], droppedAttributesCount: 0 };

/** A request whose resource says hpc1/gpu07, holding the given metrics under Jobsight's scope. */
function request(...metrics: Metric[]): ExportMetricsServiceRequest {
  return {
    resourceMetrics: [
      {
        resource: {
          attributes: keyValues([
            ["jobsight.cluster", "hpc1"],
            ["host.name", "gpu07"],
          ]),
          droppedAttributesCount: 0,
          entityRefs: [],
        },
        scopeMetrics: [{ scope, metrics, schemaUrl: "" }],
        schemaUrl: "",
      },
    ],
  };
}

const job = { "jobsight.job.id": "9" };

describe("decodeObservations", () => {
  it("assembles one sample from the points that share cluster, job, node, step and time", () => {
    const { samples, keys, rejected } = decodeObservations(
      request(
        gauge(
          M.memoryUsage,
          point({ asInt: 10n }, job),
          point({ asInt: 20n }, { ...job, "jobsight.job.step": "batch" }),
        ),
        gauge(M.processCount, point({ asInt: 3n }, job)),
      ),
    );
    expect(rejected.count).toBe(0);
    expect(samples).toEqual([
      {
        cluster: "hpc1",
        jobId: "9",
        node: "gpu07",
        time: "2026-12-02T16:30:00.000Z",
        memory: { currentBytes: 10 },
        pids: 3,
      },
      {
        cluster: "hpc1",
        jobId: "9",
        node: "gpu07",
        step: "batch",
        time: "2026-12-02T16:30:00.000Z",
        memory: { currentBytes: 20 },
      },
    ]);
    expect(keys).toEqual(samples.map(usageSampleKey));
  });

  it("carries a job's thread and runnable-thread counts through OTLP and back", () => {
    const sample = {
      ...usageSamples()[0],
      cpu: { usageSeconds: 120.5, limitCores: 8, threads: 70, runnableThreads: 23 },
    };
    const request = encodeObservations([sample]);
    const names = request.resourceMetrics[0].scopeMetrics[0].metrics.map((m) => m.name);
    expect(names).toContain(M.threadCount);
    expect(names).toContain(M.threadRunnable);
    const { samples, rejected } = decodeObservations(request);
    expect(rejected.count).toBe(0);
    expect(samples[0].cpu).toEqual({ usageSeconds: 120.5, limitCores: 8, threads: 70, runnableThreads: 23 });
  });

  it("carries the node's load of a job alone on its node through OTLP (JSON and protobuf) and back", () => {
    const cpu = { usageSeconds: 120.5, limitCores: 8, nodeLoad1: 23.87, nodeRunnable: 24 };
    const request = encodeObservations([{ ...usageSamples()[0], cpu }]);
    const metrics = request.resourceMetrics[0].scopeMetrics[0].metrics;
    const load = metrics.find((m) => m.name === M.nodeLoad1m);
    expect(load?.unit).toBe("{thread}");
    expect(load?.gauge?.dataPoints[0].asDouble).toBe(23.87);
    expect(metrics.find((m) => m.name === M.nodeThreadRunnable)?.gauge?.dataPoints[0].asInt).toBe(24n);
    const json = decodeObservations(request);
    expect(json.rejected.count).toBe(0);
    expect(json.samples[0].cpu).toEqual(cpu);
    const proto = decodeObservationsProtobuf(encodeExportMetricsRequest(request));
    expect(proto.samples[0].cpu).toEqual(cpu);
    // A fractional runnable count is no count: refused, not rounded.
    const bad = encodeObservations([{ ...usageSamples()[0], cpu }]);
    const runnable = bad.resourceMetrics[0].scopeMetrics[0].metrics.find(
      (m) => m.name === M.nodeThreadRunnable,
    )!;
    runnable.gauge!.dataPoints[0] = { ...runnable.gauge!.dataPoints[0], asInt: undefined, asDouble: 2.5 };
    const refused = decodeObservations(bad);
    expect(refused.rejected.count).toBe(1);
    expect(refused.samples[0].cpu).toEqual({ usageSeconds: 120.5, limitCores: 8, nodeLoad1: 23.87 });
  });

  it("finds identity attributes on points as well as on the resource, and GPU indexes sent as strings", () => {
    const bare: ExportMetricsServiceRequest = {
      resourceMetrics: [
        {
          scopeMetrics: [
            {
              schemaUrl: "",
              metrics: [
                gauge(
                  M.gpuUtilization,
                  point(
                    { asDouble: 0.25 },
                    { "jobsight.cluster": "c", "host.name": "n", ...job, "jobsight.gpu.index": "2" },
                  ),
                ),
                gauge(
                  M.gpuMemoryUsage,
                  point(
                    { asDouble: 1024 },
                    { "jobsight.cluster": "c", "host.name": "n", ...job, "jobsight.gpu.index": 2 },
                  ),
                ),
              ],
            },
          ],
          schemaUrl: "",
        },
      ],
    };
    const { samples, rejected } = decodeObservations(bare);
    expect(rejected.count).toBe(0);
    expect(samples[0].gpus).toEqual([{ index: 2, utilizationPercent: 25, memoryUsedBytes: 1024 }]);
  });

  it("rejects, counts and explains what cannot become a sample", () => {
    const histogram: Metric = {
      name: M.memoryUsage,
      description: "",
      unit: "By",
      metadata: [],
      histogram: {
        aggregationTemporality: 2,
        dataPoints: [
          {
            attributes: [],
            startTimeUnixNano: 0n,
            timeUnixNano: T,
            count: 1n,
            bucketCounts: [],
            explicitBounds: [],
            exemplars: [],
            flags: 0,
          },
        ],
      },
    };
    const { samples, rejected, skipped } = decodeObservations(
      request(
        gauge("http.server.duration", point({ asDouble: 1 }, job), point({ asDouble: 2 }, job)),
        gauge("jobsight.jobs.count", point({ asInt: 4n }, {})),
        histogram,
        gauge(M.memoryPeak, point({ asInt: 5n }, job)), // peak without usage
        gauge(M.processCount, point({ asInt: -1n }, { "jobsight.job.id": "10" }), point({ asInt: 1n }, {})),
        gauge(M.memoryAnon, point({ asDouble: 1.5 }, { "jobsight.job.id": "11" })),
        gauge(
          M.cpuTime,
          point({ asDouble: 1 }, { "jobsight.job.id": "12" }, 0n),
          point({}, { "jobsight.job.id": "12" }),
        ),
        gauge(M.gpuPower, point({ asDouble: 100 }, { "jobsight.job.id": "13", "jobsight.gpu.index": 0 })),
      ),
    );
    expect(samples).toEqual([]);
    // An unknown metric is skipped, not refused: a gateway forwards whatever it scrapes.
    expect(skipped).toEqual({ count: 2, byReason: { unknown_metric: { "http.server.duration": 2 } } });
    expect(rejected.reasons).toEqual({
      "aggregate metric, not a per-job sample: jobsight.jobs.count": 1,
      "container.memory.usage: expected a gauge or a sum": 1,
      "memory metrics need container.memory.usage": 1,
      "jobsight.job.process.count: value is negative": 1,
      "missing jobsight.cluster, jobsight.job.id or host.name": 1,
      "container.memory.rss: value is not an integer": 1,
      "time_unix_nano is 0": 1,
      "container.cpu.time: point has no value": 1,
      "gpu metrics need hw.gpu.utilization and hw.gpu.memory.usage": 1,
    });
    expect(rejected.count).toBe(9);
    expect(describeRejections(rejected)).toMatch(/^9 data points rejected: /);
  });

  it("reads convention names as Jobsight's own only under its scope, as standard inputs elsewhere", () => {
    const sample = usageSamples()[0];
    const own = encodeObservations([sample]);
    expect(decodeObservations(own).samples).toEqual([sample]);
    // A gateway that renamed the scope: container.memory.usage still fills the job's memory
    // (a standard input naming jobsight.job.id), but the notable processes are not Jobsight's.
    const foreign = structuredClone(own);
    foreign.resourceMetrics[0].scopeMetrics[0].scope!.name = "otelcol/hostmetrics";
    const { samples } = decodeObservations(foreign);
    expect(samples[0].processes).toBeUndefined();
    expect(samples[0].memory?.peakBytes).toBe(sample.memory?.peakBytes);
    // The 0.1 names are Jobsight's whoever sends them.
    const legacy = encodeObservations([sample], { names: "legacy" });
    legacy.resourceMetrics[0].scopeMetrics[0].scope!.name = "otelcol/hostmetrics";
    expect(decodeObservations(legacy).samples).toEqual([sample]);
    expect(Object.values(LegacyJobMetricNames)).toContain("jobsight.job.memory.usage");
  });

  it("rejects every point of a sample the schema refuses, and keeps the others", () => {
    const { samples, rejected } = decodeObservations(
      request(
        gauge(
          M.memoryUsage,
          point({ asInt: 1n }, { "jobsight.job.id": "x".repeat(300) }),
          point({ asInt: 2n }, job),
        ),
        gauge(M.processCount, point({ asInt: 1n }, { "jobsight.job.id": "x".repeat(300) })),
      ),
    );
    expect(samples.map((s) => s.jobId)).toEqual(["9"]);
    expect(rejected.count).toBe(2);
    expect(Object.keys(rejected.reasons)[0]).toMatch(/^invalid sample: \/jobId: /);
  });

  it("rejects points whose identity holds U+0000 (PostgreSQL text cannot store it), keeps the rest", () => {
    const { samples, rejected } = decodeObservations(
      request(
        gauge(
          M.memoryUsage,
          point({ asInt: 1n }, { "jobsight.job.id": "9\u0000" }),
          point({ asInt: 2n }, { ...job, "jobsight.job.step": "b\u0000" }),
          point({ asInt: 3n }, { ...job, "user.name": "al\u0000ice" }),
        ),
      ),
    );
    expect(samples).toHaveLength(1);
    expect(samples[0]).toMatchObject({ jobId: "9", memory: { currentBytes: 3 } });
    expect(samples[0]).not.toHaveProperty("user");
    expect(rejected.count).toBe(2);
    expect(Object.keys(rejected.reasons)[0]).toMatch(/U\+0000/);
  });

  it("skips no-recorded-value points without counting them, and caps distinct reasons", () => {
    const stale = { ...point({ asInt: 1n }, job), flags: 1 };
    expect(decodeObservations(request(gauge(M.memoryUsage, stale)))).toEqual({
      samples: [],
      keys: [],
      rejected: { count: 0, reasons: {} },
      rejectedSamples: [],
      skipped: { count: 0, byReason: {} },
    });
    const many = Array.from({ length: 5 }, (_, i) => gauge(`other.${i}`, point({ asInt: 1n }, job)));
    const { rejected, skipped } = decodeObservations(request(...many), { maxReasons: 2 });
    expect(rejected).toEqual({ count: 0, reasons: {} });
    expect(skipped).toEqual({
      count: 5,
      byReason: { unknown_metric: { "other.0": 1, "other.1": 1, other: 3 } },
    });
  });

  it("gives a resent sample the same key, and a different step or instant a different one", () => {
    const samples = usageSamples();
    const first = decodeObservations(encodeObservations(samples));
    const again = decodeObservations(encodeObservations(samples));
    expect(again.keys).toEqual(first.keys);
    expect(new Set(first.keys).size).toBe(samples.length);
    const base = { cluster: "hpc1", jobId: "1", node: "n" };
    expect(usageSampleKey({ ...base, time: "2026-12-02T16:30:00Z" })).toBe(
      usageSampleKey({ ...base, time: "2026-12-02T17:30:00.000+01:00" }),
    );
    expect(usageSampleKey({ ...base, time: "2026-12-02T16:30:00Z" })).not.toBe(
      usageSampleKey({ ...base, step: "0", time: "2026-12-02T16:30:00Z" }),
    );
    expect(usageSampleKey({ ...base, time: "2026-12-02T16:30:00Z" })).not.toBe(
      usageSampleKey({ ...base, time: "2026-12-02T16:30:00.000000001Z" }),
    );
    expect(usageSampleKey({ ...base, time: "2026-12-02T16:30:00Z" })).toMatch(/^[0-9a-f]{64}$/);
  });
});
