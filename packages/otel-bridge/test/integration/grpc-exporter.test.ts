import * as grpc from "@grpc/grpc-js";
import { type Attributes, type DiagLogger, DiagLogLevel, diag, ValueType } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-grpc";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AggregationTemporality,
  AggregationType,
  DataPointType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import { afterEach, describe, expect, it } from "vitest";
import {
  createExportMetricsResponse,
  type ExportMetricsServiceRequest,
  METRICS_EXPORT_PATH,
  type Metric,
  OtlpAggregationTemporality,
} from "../../src/index.js";
import { startGrpcReceiver, type TestReceiver } from "./receivers.js";

const open: Array<{ close(): Promise<void> }> = [];
// Close in reverse order: a MeterProvider flushes on shutdown, so it must go before its receiver.
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function receiver(...args: Parameters<typeof startGrpcReceiver>): Promise<TestReceiver> {
  const r = await startGrpcReceiver(...args);
  open.push(r);
  return r;
}

function metricsOf(requests: ExportMetricsServiceRequest[]): Map<string, Metric> {
  const out = new Map<string, Metric>();
  for (const request of requests)
    for (const rm of request.resourceMetrics)
      for (const sm of rm.scopeMetrics) for (const m of sm.metrics) out.set(m.name, m);
  return out;
}

function attributesOf(list: { key: string; value: unknown }[]): Record<string, unknown> {
  return Object.fromEntries(list.map((kv) => [kv.key, kv.value]));
}

/** Records one of each instrument through a real MeterProvider and flushes it to `url`. */
async function exportThroughSdk(url: string, temporality: AggregationTemporality) {
  const exporter = new OTLPMetricExporter({ url, temporalityPreference: temporality });
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ "host.name": "gpu07", "jobsight.cluster": "hpc1", "x.count": 3 }),
    readers: [reader],
    views: [
      { instrumentName: "t.exponential", aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } },
    ],
  });
  open.push({ close: () => provider.shutdown() });
  const meter = provider.getMeter("jobsight-test", "1.2.3");
  const attributes: Attributes = {
    "s.attr": "job 4242",
    "b.attr": true,
    "i.attr": 9_007_199_254_740_991,
    "neg.attr": -12,
    "d.attr": 0.25,
    "a.attr": ["x", "y"],
    "an.attr": [1, 2, 3],
    "ab.attr": [true, false],
  };
  meter
    .createGauge("t.gauge.int", { unit: "By", valueType: ValueType.INT })
    .record(17_179_869_184, attributes);
  meter.createGauge("t.gauge.double", { unit: "1" }).record(0.875, { "gpu.index": 1 });
  const counter = meter.createCounter("t.counter.int", { unit: "{event}", valueType: ValueType.INT });
  counter.add(2, { k: "a" });
  counter.add(3, { k: "a" });
  meter.createCounter("t.counter.double", { unit: "s" }).add(1.5);
  meter.createUpDownCounter("t.updown", { unit: "{process}", valueType: ValueType.INT }).add(-4);
  const histogram = meter.createHistogram("t.histogram", { unit: "s" });
  for (const v of [0.5, 3, 7, 12_000]) histogram.record(v);
  const exponential = meter.createHistogram("t.exponential", { unit: "By" });
  for (const v of [0, 1, 2, 4, 1024, 1024]) exponential.record(v);
  const before = BigInt(Date.now()) * 1_000_000n;
  await reader.forceFlush();
  return before;
}

describe("the real OTLP gRPC exporter against our MetricsService definition", () => {
  it("delivers gauges, cumulative sums, histograms and every attribute type intact", async () => {
    const r = await receiver();
    const before = await exportThroughSdk(r.url, AggregationTemporality.CUMULATIVE);
    expect(r.decodeErrors).toEqual([]);
    expect(r.requests.length).toBeGreaterThanOrEqual(1);

    const rm = r.requests[0].resourceMetrics[0];
    expect(attributesOf(rm.resource!.attributes)).toMatchObject({
      "host.name": { stringValue: "gpu07" },
      "jobsight.cluster": { stringValue: "hpc1" },
      "x.count": { intValue: 3n },
    });
    expect(rm.scopeMetrics[0].scope).toMatchObject({ name: "jobsight-test", version: "1.2.3" });

    const metrics = metricsOf(r.requests);
    const gaugeInt = metrics.get("t.gauge.int")!;
    expect(gaugeInt.unit).toBe("By");
    const p = gaugeInt.gauge!.dataPoints[0];
    expect(p.asInt).toBe(17_179_869_184n);
    expect(p.asDouble).toBeUndefined();
    expect(p.timeUnixNano).toBeGreaterThanOrEqual(before - 5_000_000_000n);
    expect(attributesOf(p.attributes)).toEqual({
      "s.attr": { stringValue: "job 4242" },
      "b.attr": { boolValue: true },
      "i.attr": { intValue: 9_007_199_254_740_991n },
      "neg.attr": { intValue: -12n },
      "d.attr": { doubleValue: 0.25 },
      "a.attr": { arrayValue: { values: [{ stringValue: "x" }, { stringValue: "y" }] } },
      "an.attr": { arrayValue: { values: [{ intValue: 1n }, { intValue: 2n }, { intValue: 3n }] } },
      "ab.attr": { arrayValue: { values: [{ boolValue: true }, { boolValue: false }] } },
    });

    const gaugeDouble = metrics.get("t.gauge.double")!.gauge!.dataPoints[0];
    expect(gaugeDouble.asDouble).toBe(0.875);
    expect(attributesOf(gaugeDouble.attributes)).toEqual({ "gpu.index": { intValue: 1n } });

    const counterInt = metrics.get("t.counter.int")!.sum!;
    expect(counterInt.isMonotonic).toBe(true);
    expect(counterInt.aggregationTemporality).toBe(OtlpAggregationTemporality.CUMULATIVE);
    expect(counterInt.dataPoints[0].asInt).toBe(5n);
    expect(counterInt.dataPoints[0].startTimeUnixNano).toBeGreaterThan(0n);
    expect(counterInt.dataPoints[0].startTimeUnixNano).toBeLessThanOrEqual(
      counterInt.dataPoints[0].timeUnixNano,
    );

    expect(metrics.get("t.counter.double")!.sum!.dataPoints[0].asDouble).toBe(1.5);
    const updown = metrics.get("t.updown")!.sum!;
    expect(updown.isMonotonic).toBe(false);
    expect(updown.dataPoints[0].asInt).toBe(-4n);

    const histogram = metrics.get("t.histogram")!.histogram!;
    expect(histogram.aggregationTemporality).toBe(OtlpAggregationTemporality.CUMULATIVE);
    const hp = histogram.dataPoints[0];
    expect(hp.count).toBe(4n);
    expect(hp.sum).toBe(12_010.5);
    expect(hp.min).toBe(0.5);
    expect(hp.max).toBe(12_000);
    expect(hp.bucketCounts.length).toBe(hp.explicitBounds.length + 1);
    expect(hp.bucketCounts.reduce((a, b) => a + b, 0n)).toBe(4n);
    expect(hp.bucketCounts.at(-1)).toBe(1n); // 12000 lands above the last default bound (10000)

    const exponential = metrics.get("t.exponential")!.exponentialHistogram!;
    expect(exponential.aggregationTemporality).toBe(OtlpAggregationTemporality.CUMULATIVE);
    const ep = exponential.dataPoints[0];
    expect([ep.count, ep.sum, ep.min, ep.max, ep.zeroCount]).toEqual([6n, 2055, 0, 1024, 1n]);
    expect(ep.scale).toBeGreaterThan(-10);
    const positive = ep.positive!.bucketCounts.reduce((a, b) => a + b, 0n);
    expect(positive).toBe(5n);
    // Each value v > 0 sits in the bucket with index ceil(log2(v) * 2^scale) - 1.
    const indexOf = (v: number) => Math.ceil(Math.log2(v) * 2 ** ep.scale) - 1;
    expect(ep.positive!.offset).toBe(indexOf(1));
    expect(ep.positive!.bucketCounts[indexOf(1024) - ep.positive!.offset]).toBe(2n);
  });

  it("delivers delta temporality when the exporter prefers it", async () => {
    const r = await receiver();
    await exportThroughSdk(r.url, AggregationTemporality.DELTA);
    const metrics = metricsOf(r.requests);
    expect(metrics.get("t.counter.int")!.sum!.aggregationTemporality).toBe(OtlpAggregationTemporality.DELTA);
    expect(metrics.get("t.counter.int")!.sum!.dataPoints[0].asInt).toBe(5n);
    expect(metrics.get("t.histogram")!.histogram!.aggregationTemporality).toBe(
      OtlpAggregationTemporality.DELTA,
    );
  });

  it("carries kvlist and bytes attributes and original timestamps through export()", async () => {
    const r = await receiver();
    const exporter = new OTLPMetricExporter({ url: r.url });
    open.push({ close: () => exporter.shutdown() });
    const sampledAt: [number, number] = [1_764_000_000, 123_456_789];
    // The metrics API only takes primitives and arrays; the exporter itself also encodes
    // Uint8Array (bytesValue) and plain objects (kvlistValue), which export() lets us reach.
    const attributes = {
      bytes: new Uint8Array([0, 1, 254, 255]),
      nested: { inner: "v", n: 2, deeper: { flag: false } },
    } as unknown as Attributes;
    const resourceMetrics: ResourceMetrics = {
      resource: resourceFromAttributes({ "host.name": "node-a" }),
      scopeMetrics: [
        {
          scope: { name: "direct" },
          metrics: [
            {
              descriptor: { name: "t.direct", description: "d", unit: "By", valueType: ValueType.INT },
              aggregationTemporality: AggregationTemporality.CUMULATIVE,
              dataPointType: DataPointType.GAUGE,
              dataPoints: [{ startTime: sampledAt, endTime: sampledAt, attributes, value: 42 }],
            },
          ],
        },
      ],
    };
    const result = await new Promise<{ code: ExportResultCode }>((resolve) =>
      exporter.export(resourceMetrics, resolve),
    );
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    const m = metricsOf(r.requests).get("t.direct")!;
    expect(m.description).toBe("d");
    const p = m.gauge!.dataPoints[0];
    expect(p.timeUnixNano).toBe(1_764_000_000_123_456_789n);
    expect(p.asInt).toBe(42n);
    expect(attributesOf(p.attributes)).toEqual({
      bytes: { bytesValue: new Uint8Array([0, 1, 254, 255]) },
      nested: {
        kvlistValue: {
          values: [
            { key: "inner", value: { stringValue: "v" } },
            { key: "n", value: { intValue: 2n } },
            {
              key: "deeper",
              value: { kvlistValue: { values: [{ key: "flag", value: { boolValue: false } }] } },
            },
          ],
        },
      },
    });
  });

  it("sends our partial success back and the exporter reads it", async () => {
    const r = await receiver(() => createExportMetricsResponse(7, "7 points of unknown metrics rejected"));
    const warnings: string[] = [];
    const logger: DiagLogger = {
      error: () => {},
      warn: (...args: unknown[]) => warnings.push(args.map(String).join(" ")),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    };
    diag.setLogger(logger, DiagLogLevel.WARN);
    try {
      await exportThroughSdk(r.url, AggregationTemporality.CUMULATIVE);
    } finally {
      diag.disable();
    }
    const partial = warnings.find((w) => w.includes("Partial Success"));
    expect(partial).toBeDefined();
    expect(JSON.parse(partial!.slice(partial!.indexOf("{")))).toEqual({
      rejectedDataPoints: 7,
      errorMessage: "7 points of unknown metrics rejected",
    });
  });

  it("answers malformed and truncated protobuf with INVALID_ARGUMENT and a typed error", async () => {
    const r = await receiver();
    const rawDefinition = {
      export: {
        path: METRICS_EXPORT_PATH,
        requestStream: false,
        responseStream: false,
        requestSerialize: (b: Buffer) => b,
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      },
    } satisfies grpc.ServiceDefinition;
    const Client = grpc.makeGenericClientConstructor(rawDefinition, "MetricsService");
    const client = new Client(r.url.replace("http://", ""), grpc.credentials.createInsecure());
    open.push({ close: async () => client.close() });
    const call = (body: Buffer) =>
      new Promise<grpc.ServiceError>((resolve, reject) =>
        client.export(body, (error: grpc.ServiceError | null) =>
          error ? resolve(error) : reject(new Error("expected an error")),
        ),
      );

    // resourceMetrics (field 1, length-delimited) claims 50 bytes but only 2 follow.
    const truncated = await call(Buffer.from([0x0a, 0x32, 0x0a, 0x00]));
    expect(truncated.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(truncated.details).toMatch(/^OTLP_TRUNCATED: resourceMetrics\[0\]/);

    // resourceMetrics sent as a varint: wrong wire type for a known field.
    const wrongType = await call(Buffer.from([0x08, 0x01]));
    expect(wrongType.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(wrongType.details).toMatch(/^OTLP_MALFORMED_PROTOBUF: .*wire type 0, expected 2/);

    expect(r.decodeErrors.map((e) => e.code)).toEqual(["OTLP_TRUNCATED", "OTLP_MALFORMED_PROTOBUF"]);
    expect(r.requests).toEqual([]);
  });
});
