import { ExportResultCode } from "@opentelemetry/core";
import { OTLPMetricExporter as GrpcExporter } from "@opentelemetry/exporter-metrics-otlp-grpc";
import { OTLPMetricExporter as JsonExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import type { PushMetricExporter, ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { afterEach, describe, expect, it } from "vitest";
import {
  createExportMetricsResponse,
  decodeObservations,
  describeRejections,
  type ExportMetricsServiceRequest,
  observationsToResourceMetrics,
  usageSampleKey,
} from "../../src/index.js";
import { sortSamples, usageSamples } from "../usage-samples.js";
import { startGrpcReceiver, startHttpReceiver, type TestReceiver } from "./receivers.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

/** What the receiver would store and answer: decode, then report rejections as partial success. */
function answer(request: ExportMetricsServiceRequest) {
  const { rejected } = decodeObservations(request);
  return createExportMetricsResponse(rejected.count, describeRejections(rejected));
}

async function exportAll(exporter: PushMetricExporter, batches: ResourceMetrics[]): Promise<void> {
  for (const rm of batches) {
    const result = await new Promise<{ code: ExportResultCode; error?: Error }>((resolve) =>
      exporter.export(rm, resolve),
    );
    if (result.code !== ExportResultCode.SUCCESS) throw result.error ?? new Error("export failed");
  }
}

const transports: Array<{
  name: string;
  start: () => Promise<TestReceiver>;
  exporter: (url: string) => PushMetricExporter;
}> = [
  { name: "gRPC", start: () => startGrpcReceiver(answer), exporter: (url) => new GrpcExporter({ url }) },
  {
    name: "gRPC with gzip",
    start: () => startGrpcReceiver(answer),
    // CompressionAlgorithm lives in otlp-exporter-base, not a dependency here; its value is "gzip".
    exporter: (url) =>
      new GrpcExporter({ url, compression: "gzip" } as unknown as ConstructorParameters<
        typeof GrpcExporter
      >[0]),
  },
  {
    name: "HTTP protobuf",
    start: () => startHttpReceiver(answer),
    exporter: (url) => new ProtoExporter({ url }),
  },
  { name: "HTTP JSON", start: () => startHttpReceiver(answer), exporter: (url) => new JsonExporter({ url }) },
];

describe("usage samples through the real OpenTelemetry exporters and back", () => {
  for (const transport of transports) {
    it(`arrive equal, with their original timestamps, over ${transport.name}`, async () => {
      const receiver = await transport.start();
      open.push(receiver);
      const exporter = transport.exporter(receiver.url);
      open.push({ close: () => exporter.shutdown() });

      const samples = usageSamples();
      // Spooled samples go out hours after they were taken; their own time must survive.
      await exportAll(exporter, observationsToResourceMetrics(samples, { scheduler: "slurm" }));

      expect(receiver.decodeErrors).toEqual([]);
      const decoded = receiver.requests.map((r) => decodeObservations(r));
      expect(decoded.map((d) => d.rejected.count)).toEqual(decoded.map(() => 0));
      const back = decoded.flatMap((d) => d.samples);
      expect(sortSamples(back)).toEqual(sortSamples(samples));
      expect(decoded.flatMap((d) => d.keys).sort()).toEqual(samples.map(usageSampleKey).sort());
    });
  }

  it("stores a resent batch under the same keys", async () => {
    const receiver = await startGrpcReceiver(answer);
    open.push(receiver);
    const exporter = new GrpcExporter({ url: receiver.url });
    open.push({ close: () => exporter.shutdown() });
    const batches = observationsToResourceMetrics(usageSamples());
    await exportAll(exporter, batches);
    await exportAll(exporter, batches);
    const keys = receiver.requests.flatMap((r) => decodeObservations(r).keys);
    expect(keys).toHaveLength(2 * usageSamples().length);
    expect(new Set(keys).size).toBe(usageSamples().length);
  });
});
