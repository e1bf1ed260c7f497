import { Metadata } from "@grpc/grpc-js";
import {
  decodeExportMetricsResponse,
  encodeExportMetricsRequest,
  encodeObservations,
  observationsToResourceMetrics,
} from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { OTLPMetricExporter as GrpcExporter } from "@opentelemetry/exporter-metrics-otlp-grpc";
import { OTLPMetricExporter as JsonExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import type { PushMetricExporter } from "@opentelemetry/sdk-metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OtlpFixture, richSamples, startOtlpFixture, TOKENS } from "./otlp-fixture.js";
import { withDiagWarnings } from "./sdk-export.js";

type Compression = NonNullable<ConstructorParameters<typeof GrpcExporter>[0]>["compression"];
const GZIP = "gzip" as Compression;

let fx: OtlpFixture;
const exporters: PushMetricExporter[] = [];

beforeAll(async () => {
  fx = await startOtlpFixture("otlp_exporters");
});
afterAll(async () => {
  for (const e of exporters) await e.shutdown();
  await fx?.close();
});

function grpcExporter(token: string, compression?: Compression): GrpcExporter {
  const metadata = new Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  const exporter = new GrpcExporter({ url: fx.receivers.grpc.url, metadata, compression });
  exporters.push(exporter);
  return exporter;
}

function httpHeaders(token: string) {
  return { authorization: `Bearer ${token}` };
}

/** Sends samples the way a collector does: one ResourceMetrics per (cluster, node). */
async function exportSamples(exporter: PushMetricExporter, samples: UsageSample[]): Promise<ExportResult[]> {
  const results: ExportResult[] = [];
  for (const rm of observationsToResourceMetrics(samples, { scheduler: "slurm" })) {
    results.push(await new Promise<ExportResult>((resolve) => exporter.export(rm, resolve)));
  }
  return results;
}

/** What storage holds for these samples' jobs, in the store's order (time, node, step). */
async function stored(samples: UsageSample[]): Promise<UsageSample[]> {
  const jobs = [...new Set(samples.map((s) => `${s.cluster}\u0000${s.jobId}`))];
  const out: UsageSample[] = [];
  for (const job of jobs) {
    const [cluster, jobId] = job.split("\u0000");
    out.push(...(await fx.storage.storage.samples.series(cluster, jobId)).samples);
  }
  return out;
}

function inStoreOrder(samples: UsageSample[]): UsageSample[] {
  const key = (s: UsageSample) =>
    `${s.cluster}\u0000${s.jobId}\u0000${s.time}\u0000${s.node}\u0000${s.step ?? ""}`;
  return [...samples].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

describe("real OpenTelemetry exporters against the OTLP receivers and real PostgreSQL", () => {
  it("stores every value sent by exporter-metrics-otlp-grpc (gzip), and a resend stores nothing twice", async () => {
    const samples = [
      ...richSamples("hpc1", "grpc-1", 30, "gpu07"),
      ...richSamples("hpc1", "grpc-1", 30, "gpu08"),
      ...richSamples("hpc1", "grpc-2", 25, "gpu07"),
    ];
    const exporter = grpcExporter(TOKENS.hpc1, GZIP);
    const { result, warnings } = await withDiagWarnings(() => exportSamples(exporter, samples));
    expect(result.map((r) => r.code)).toEqual(result.map(() => ExportResultCode.SUCCESS));
    expect(warnings.filter((w) => w.includes("Partial Success"))).toEqual([]);
    expect(await stored(samples)).toEqual(inStoreOrder(samples));

    const rows = await fx.rowCount();
    const again = await exportSamples(grpcExporter(TOKENS.hpc1), samples);
    expect(again.every((r) => r.code === ExportResultCode.SUCCESS)).toBe(true);
    expect(await fx.rowCount()).toBe(rows);
    expect(await stored(samples)).toEqual(inStoreOrder(samples));
  });

  it("stores every value sent as OTLP/JSON by exporter-metrics-otlp-http", async () => {
    const samples = richSamples("hpc1", "json-1", 40);
    const exporter = new JsonExporter({ url: fx.receivers.http.url, headers: httpHeaders(TOKENS.hpc1) });
    exporters.push(exporter);
    const results = await exportSamples(exporter, samples);
    expect(results.every((r) => r.code === ExportResultCode.SUCCESS)).toBe(true);
    expect(await stored(samples)).toEqual(inStoreOrder(samples));
    const rows = await fx.rowCount();
    await exportSamples(exporter, samples);
    expect(await fx.rowCount()).toBe(rows);
  });

  it("stores every value sent as gzip protobuf by exporter-metrics-otlp-proto", async () => {
    const samples = [
      ...richSamples("hpc2", "proto-1", 35, "cn1"),
      ...richSamples("hpc2", "proto-1", 35, "cn2"),
    ];
    const exporter = new ProtoExporter({
      url: fx.receivers.http.url,
      headers: httpHeaders(TOKENS.hpc2),
      compression: GZIP,
    });
    exporters.push(exporter);
    const results = await exportSamples(exporter, samples);
    expect(results.every((r) => r.code === ExportResultCode.SUCCESS)).toBe(true);
    expect(await stored(samples)).toEqual(inStoreOrder(samples));
  });

  it("skips unknown metrics without refusing a point, stores the rest, and answers partial success for what it refuses", async () => {
    const samples = richSamples("hpc1", "partial-1", 3);
    const request = encodeObservations(samples);
    const scope = request.resourceMetrics[0].scopeMetrics[0];
    const time = BigInt(Date.UTC(2026, 11, 1, 10)) * 1_000_000n;
    scope.metrics.push({
      name: "site.custom.metric",
      description: "",
      unit: "1",
      metadata: [],
      gauge: {
        dataPoints: [1, 2, 3].map((v) => ({
          attributes: [{ key: "jobsight.job.id", value: { stringValue: "partial-1" } }],
          startTimeUnixNano: 0n,
          timeUnixNano: time,
          asDouble: v,
          exemplars: [],
          flags: 0,
        })),
      },
    });
    const res = await fetch(fx.receivers.http.url, {
      method: "POST",
      headers: { ...httpHeaders(TOKENS.hpc1), "content-type": "application/x-protobuf" },
      body: encodeExportMetricsRequest(request),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-protobuf");
    const answer = decodeExportMetricsResponse(new Uint8Array(await res.arrayBuffer()));
    // A gateway forwards whatever it scrapes: metrics Jobsight does not read are no one's error.
    expect(answer.partialSuccess?.rejectedDataPoints ?? 0n).toBe(0n);
    expect(await stored(samples)).toEqual(inStoreOrder(samples));

    // What it does refuse (another cluster's points) the real exporter surfaces as a "Partial Success" warning.
    const { warnings } = await withDiagWarnings(() =>
      exportSamples(grpcExporter(TOKENS.hpc1), richSamples("hpc2", "foreign-1", 2)),
    );
    expect(warnings.join("\n")).toMatch(/Partial Success/);
  });

  it("rejects, point by point, what a collector sends for another cluster", async () => {
    const own = richSamples("hpc1", "mixed-1", 4);
    const foreign = richSamples("hpc2", "mixed-2", 4);
    const request = encodeObservations([...own, ...foreign]);
    const foreignPoints = encodeObservations(foreign)
      .resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
      .reduce((n, m) => n + (m.gauge ?? m.sum)!.dataPoints.length, 0);
    const res = await fetch(fx.receivers.http.url, {
      method: "POST",
      headers: { ...httpHeaders(TOKENS.hpc1), "content-type": "application/x-protobuf" },
      body: encodeExportMetricsRequest(request),
    });
    const answer = decodeExportMetricsResponse(new Uint8Array(await res.arrayBuffer()));
    expect(answer.partialSuccess?.rejectedDataPoints).toBe(BigInt(foreignPoints));
    expect(answer.partialSuccess?.errorMessage).toContain("cluster hpc2 is not this sender's cluster (hpc1)");
    expect(await stored(own)).toEqual(inStoreOrder(own));
    expect(await stored(foreign)).toEqual([]);
  });
});
