import { request as httpRequest } from "node:http";
import { type ChannelCredentials, credentials, Metadata } from "@grpc/grpc-js";
import { observationsToResourceMetrics } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { OTLPMetricExporter as GrpcExporter } from "@opentelemetry/exporter-metrics-otlp-grpc";
import { OTLPMetricExporter as JsonExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import type { PushMetricExporter } from "@opentelemetry/sdk-metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { type OtlpReceivers, startOtlpReceivers } from "../../../src/data-plane/otlp/otlp-receivers.js";
import { openTestStorage, type StorageFixture } from "../storage-fixture.js";
import { richSamples } from "./otlp-fixture.js";
import { createTestCertificates, type TestCertificates } from "./test-certificates.js";

const TOKEN = "collector-otlp-tls-hpc1-0001";
// Refused exporters retry connection errors until their timeout; keep that short.
const REFUSED_TIMEOUT_MS = 2_000;

let certs: TestCertificates;
let storage: StorageFixture;
let receivers: OtlpReceivers;
const exporters: PushMetricExporter[] = [];

beforeAll(async () => {
  certs = await createTestCertificates();
  storage = await openTestStorage("otlp_tls");
  await storage.storage.clusters.register({ id: "hpc1", name: "HPC1", scheduler: "slurm" });
  const config = parseServerConfig({
    rateLimit: { enabled: false },
    otlp: { host: "127.0.0.1", grpcPort: 0, httpPort: 0 },
    auth: { tokens: [{ token: TOKEN, role: "collector", user: "svc", cluster: "hpc1" }] },
    tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile },
  });
  receivers = await startOtlpReceivers({ config, storage: storage.storage });
});

afterAll(async () => {
  for (const e of exporters) await e.shutdown();
  await receivers?.close(1_000);
  await storage?.dispose();
  await certs?.dispose();
});

/**
 * The gRPC receiver's URL with the certificate's host name: TLS server names must be host names
 * (RFC 6066), and the exporter takes no channel options to override the name it checks.
 */
function grpcUrl(scheme: "https" | "http"): string {
  return `${scheme}://localhost:${receivers.grpc.port}`;
}

/** The HTTP receiver's endpoint, spelled out so a receiver that fell back to plain HTTP fails. */
function httpUrl(scheme: "https" | "http"): string {
  return `${scheme}://127.0.0.1:${receivers.http.port}/v1/metrics`;
}

function grpcExporter(url: string, channel: ChannelCredentials, timeoutMillis?: number): GrpcExporter {
  const metadata = new Metadata();
  metadata.set("authorization", `Bearer ${TOKEN}`);
  const exporter = new GrpcExporter({ url, credentials: channel, metadata, timeoutMillis });
  exporters.push(exporter);
  return exporter;
}

function httpExporter<E extends PushMetricExporter>(
  Exporter: new (config: ConstructorParameters<typeof JsonExporter>[0]) => E,
  url: string,
  ca: Buffer | undefined,
  timeoutMillis?: number,
): E {
  const exporter = new Exporter({
    url,
    headers: { authorization: `Bearer ${TOKEN}` },
    ...(ca ? { httpAgentOptions: { ca } } : {}),
    timeoutMillis,
  });
  exporters.push(exporter);
  return exporter;
}

async function exportSamples(exporter: PushMetricExporter, samples: UsageSample[]): Promise<ExportResult[]> {
  const results: ExportResult[] = [];
  for (const rm of observationsToResourceMetrics(samples, { scheduler: "slurm" })) {
    results.push(await new Promise<ExportResult>((resolve) => exporter.export(rm, resolve)));
  }
  return results;
}

async function stored(jobId: string): Promise<UsageSample[]> {
  return (await storage.storage.samples.series("hpc1", jobId)).samples;
}

function byTime(samples: UsageSample[]): UsageSample[] {
  return [...samples].sort((a, b) => a.time.localeCompare(b.time));
}

/** Plain HTTP to a port: resolves with the status if anything answers in HTTP. */
function plainPost(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, method: "POST", path: "/v1/metrics", timeout: REFUSED_TIMEOUT_MS },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end(Buffer.alloc(0));
  });
}

describe("OTLP receivers with TLS configured", () => {
  it("report https URLs on the ports they listen on", () => {
    expect(receivers.grpc.url).toBe(`https://127.0.0.1:${receivers.grpc.port}`);
    expect(receivers.http.url).toBe(`https://127.0.0.1:${receivers.http.port}/v1/metrics`);
  });

  it("store what exporter-metrics-otlp-grpc sends over TLS with the CA trusted", async () => {
    const samples = richSamples("hpc1", "tls-grpc-1", 12);
    const results = await exportSamples(
      grpcExporter(grpcUrl("https"), credentials.createSsl(certs.ca)),
      samples,
    );
    expect(results.map((r) => r.code)).toEqual(results.map(() => ExportResultCode.SUCCESS));
    expect(await stored("tls-grpc-1")).toEqual(byTime(samples));
  });

  it("store what exporter-metrics-otlp-http and -proto send over HTTPS with the CA trusted", async () => {
    const json = richSamples("hpc1", "tls-json-1", 10);
    const proto = richSamples("hpc1", "tls-proto-1", 10);
    const jsonResults = await exportSamples(httpExporter(JsonExporter, httpUrl("https"), certs.ca), json);
    const protoResults = await exportSamples(httpExporter(ProtoExporter, httpUrl("https"), certs.ca), proto);
    expect([...jsonResults, ...protoResults].every((r) => r.code === ExportResultCode.SUCCESS)).toBe(true);
    expect(await stored("tls-json-1")).toEqual(byTime(json));
    expect(await stored("tls-proto-1")).toEqual(byTime(proto));
  });

  it("refuse plaintext gRPC and plain HTTP", async () => {
    const samples = richSamples("hpc1", "tls-plain-1", 3);
    const insecure = grpcExporter(grpcUrl("http"), credentials.createInsecure(), REFUSED_TIMEOUT_MS);
    const results = [
      ...(await exportSamples(insecure, samples)),
      ...(await exportSamples(
        httpExporter(JsonExporter, httpUrl("http"), undefined, REFUSED_TIMEOUT_MS),
        samples,
      )),
    ];
    expect(results.map((r) => r.code)).toEqual(results.map(() => ExportResultCode.FAILED));
    await expect(plainPost(receivers.http.port)).rejects.toThrow();
    await expect(plainPost(receivers.grpc.port)).rejects.toThrow();
    expect(await stored("tls-plain-1")).toEqual([]);
  });

  it("refuse, on the client side, a server whose CA the client does not trust", async () => {
    const samples = richSamples("hpc1", "tls-untrusted-1", 3);
    const results = [
      ...(await exportSamples(
        grpcExporter(grpcUrl("https"), credentials.createSsl(certs.otherCa), REFUSED_TIMEOUT_MS),
        samples,
      )),
      ...(await exportSamples(
        httpExporter(JsonExporter, httpUrl("https"), certs.otherCa, REFUSED_TIMEOUT_MS),
        samples,
      )),
      ...(await exportSamples(
        httpExporter(ProtoExporter, httpUrl("https"), undefined, REFUSED_TIMEOUT_MS),
        samples,
      )),
    ];
    expect(results.map((r) => r.code)).toEqual(results.map(() => ExportResultCode.FAILED));
    for (const result of results) {
      expect(String(result.error?.message)).toMatch(/unable to verify|certificate|issuer/i);
    }
    expect(await stored("tls-untrusted-1")).toEqual([]);
  });

  // Last: it changes the certificate the receivers serve.
  it("serve a renewed certificate on both listeners without a restart", async () => {
    await certs.renewFromOtherCa();
    expect(await receivers.reloadTls()).toBe(true);
    const grpcSamples = richSamples("hpc1", "tls-renewed-grpc", 3);
    const httpSamples = richSamples("hpc1", "tls-renewed-http", 3);
    const renewed = [
      ...(await exportSamples(
        grpcExporter(grpcUrl("https"), credentials.createSsl(certs.otherCa)),
        grpcSamples,
      )),
      ...(await exportSamples(httpExporter(JsonExporter, httpUrl("https"), certs.otherCa), httpSamples)),
    ];
    expect(renewed.map((r) => r.code)).toEqual(renewed.map(() => ExportResultCode.SUCCESS));
    expect(await stored("tls-renewed-grpc")).toEqual(byTime(grpcSamples));
    expect(await stored("tls-renewed-http")).toEqual(byTime(httpSamples));
    const old = await exportSamples(
      grpcExporter(grpcUrl("https"), credentials.createSsl(certs.ca), REFUSED_TIMEOUT_MS),
      richSamples("hpc1", "tls-renewed-old", 1),
    );
    expect(old.map((r) => r.code)).toEqual([ExportResultCode.FAILED]);
    expect(await receivers.reloadTls()).toBe(false);
  });
});
