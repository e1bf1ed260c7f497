import { type Attributes, type DiagLogger, DiagLogLevel, diag, ValueType } from "@opentelemetry/api";
import { OTLPMetricExporter as JsonExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from "@opentelemetry/sdk-metrics";
import { afterEach, describe, expect, it } from "vitest";
import {
  createExportMetricsResponse,
  type ExportMetricsServiceRequest,
  encodeExportMetricsRequest,
  type Metric,
  OtlpAggregationTemporality,
} from "../../src/index.js";
import { startHttpReceiver } from "./receivers.js";

const open: Array<{ close(): Promise<void> }> = [];
// Close in reverse order: a MeterProvider flushes on shutdown, so it must go before its receiver.
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

function metricsOf(requests: ExportMetricsServiceRequest[]): Map<string, Metric> {
  const out = new Map<string, Metric>();
  for (const request of requests)
    for (const rm of request.resourceMetrics)
      for (const sm of rm.scopeMetrics) for (const m of sm.metrics) out.set(m.name, m);
  return out;
}

async function recordAndFlush(exporter: PushMetricExporter): Promise<void> {
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ "host.name": "n1" }),
    readers: [reader],
  });
  open.push({ close: () => provider.shutdown() });
  const meter = provider.getMeter("http-test");
  const attributes: Attributes = { s: "v", b: false, i: 123_456_789_012, d: -2.5, a: ["p", "q"] };
  meter
    .createGauge("h.gauge.int", { unit: "By", valueType: ValueType.INT })
    .record(68_719_476_736, attributes);
  meter.createGauge("h.gauge.double", { unit: "1" }).record(0.125);
  meter.createCounter("h.counter", { unit: "s" }).add(2.75, { k: "x" });
  const h = meter.createHistogram("h.histogram", { unit: "By", valueType: ValueType.INT });
  h.record(10);
  h.record(1_000);
  await reader.forceFlush();
}

function checkDelivered(requests: ExportMetricsServiceRequest[], temporality: number) {
  const metrics = metricsOf(requests);
  const gauge = metrics.get("h.gauge.int")!.gauge!.dataPoints[0];
  expect(gauge.asInt).toBe(68_719_476_736n);
  expect(gauge.timeUnixNano).toBeGreaterThan(1_700_000_000_000_000_000n);
  expect(Object.fromEntries(gauge.attributes.map((kv) => [kv.key, kv.value]))).toEqual({
    s: { stringValue: "v" },
    b: { boolValue: false },
    i: { intValue: 123_456_789_012n },
    d: { doubleValue: -2.5 },
    a: { arrayValue: { values: [{ stringValue: "p" }, { stringValue: "q" }] } },
  });
  expect(metrics.get("h.gauge.double")!.gauge!.dataPoints[0].asDouble).toBe(0.125);
  const sum = metrics.get("h.counter")!.sum!;
  expect(sum.aggregationTemporality).toBe(temporality);
  expect(sum.isMonotonic).toBe(true);
  expect(sum.dataPoints[0].asDouble).toBe(2.75);
  const hp = metrics.get("h.histogram")!.histogram!.dataPoints[0];
  expect([hp.count, hp.sum, hp.min, hp.max]).toEqual([2n, 1_010, 10, 1_000]);
  expect(requests[0].resourceMetrics[0].resource!.attributes).toEqual([
    { key: "host.name", value: { stringValue: "n1" } },
  ]);
}

describe("the real OTLP/HTTP exporters against a node:http receiver", () => {
  it("decodes what exporter-metrics-otlp-http sends as OTLP/JSON", async () => {
    const r = await startHttpReceiver();
    open.push(r);
    await recordAndFlush(new JsonExporter({ url: r.url }));
    expect(r.decodeErrors).toEqual([]);
    expect(r.contentTypes[0]).toMatch(/^application\/json/);
    checkDelivered(r.requests, OtlpAggregationTemporality.CUMULATIVE);
  });

  it("decodes what exporter-metrics-otlp-proto sends as protobuf, delta temporality", async () => {
    const r = await startHttpReceiver();
    open.push(r);
    await recordAndFlush(
      new ProtoExporter({ url: r.url, temporalityPreference: AggregationTemporality.DELTA }),
    );
    expect(r.decodeErrors).toEqual([]);
    expect(r.contentTypes[0]).toBe("application/x-protobuf");
    checkDelivered(r.requests, OtlpAggregationTemporality.DELTA);
  });

  it("returns partial success in both encodings and the exporters read it", async () => {
    const r = await startHttpReceiver(() => createExportMetricsResponse(2, "two points rejected"));
    open.push(r);
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
      await recordAndFlush(new JsonExporter({ url: r.url }));
      await recordAndFlush(new ProtoExporter({ url: r.url }));
    } finally {
      diag.disable();
    }
    const partials = warnings.filter((w) => w.includes("Partial Success"));
    expect(partials).toHaveLength(2);
    // JSON carries int64 as a decimal string, protobuf as a varint the exporter reads as a number.
    expect(partials[0]).toContain('"rejectedDataPoints":"2"');
    expect(partials[1]).toContain('"rejectedDataPoints":2');
    for (const p of partials) expect(p).toContain('"errorMessage":"two points rejected"');
  });

  it("refuses a truncated protobuf body and an unknown content type with typed errors", async () => {
    const r = await startHttpReceiver();
    open.push(r);
    const whole = encodeExportMetricsRequest({
      resourceMetrics: [
        {
          schemaUrl: "",
          scopeMetrics: [
            {
              schemaUrl: "",
              metrics: [
                {
                  name: "m",
                  description: "",
                  unit: "By",
                  metadata: [],
                  gauge: {
                    dataPoints: [
                      {
                        attributes: [],
                        startTimeUnixNano: 0n,
                        timeUnixNano: 1n,
                        asInt: 5n,
                        exemplars: [],
                        flags: 0,
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    });
    const post = (body: Uint8Array, type: string) =>
      fetch(r.url, { method: "POST", headers: { "content-type": type }, body });
    const cut = await post(whole.subarray(0, whole.length - 3), "application/x-protobuf");
    expect(cut.status).toBe(400);
    expect(await cut.text()).toMatch(/^OTLP_TRUNCATED: resourceMetrics\[0\]/);
    const xml = await post(whole, "application/xml");
    expect(xml.status).toBe(400);
    expect(await xml.text()).toMatch(/^OTLP_UNSUPPORTED_CONTENT_TYPE/);
    const ok = await post(whole, "application/x-protobuf");
    expect(ok.status).toBe(200);
    expect(r.requests).toHaveLength(1);
    expect(r.decodeErrors.map((e) => e.code)).toEqual(["OTLP_TRUNCATED", "OTLP_UNSUPPORTED_CONTENT_TYPE"]);
  });
});
