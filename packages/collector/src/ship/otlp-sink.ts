import { Metadata } from "@grpc/grpc-js";
import { observationsToResourceMetrics } from "@jobsight/otel-bridge";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-grpc";
import { SinkError } from "../errors.js";
import { HttpJsonSink } from "./http-json-sink.js";
import type { ShipBatch, Sink } from "./sink.js";

/** Options of {@link OtlpSink}. */
export type OtlpSinkOptions = {
  /** OTLP/gRPC endpoint of the data plane (or the site's OpenTelemetry Collector), e.g. `http://host:4317`. */
  otlpUrl: string;
  /** Base URL of the data plane's REST API, for events and job records. */
  restUrl: string;
  /** Bearer token of a collector-scoped API token, sent on both paths. @default none */
  token?: string;
  /** Time limit of one export or request. @default 30000 */
  timeoutMs?: number;
  /** Where events and job records go. @default new HttpJsonSink({ url: restUrl, token, timeoutMs }) */
  rest?: Sink;
};

/**
 * Ships usage samples as OTLP metrics through the real OpenTelemetry gRPC exporter (the bearer
 * token in the gRPC metadata), and events and job records through the REST JSON ingest, which
 * OTLP metrics cannot carry. A batch counts as stored only when the exporter reports SUCCESS.
 *
 * @example
 * ```ts
 * const sink = new OtlpSink({ otlpUrl: "http://jobsight:4317", restUrl: "http://jobsight:8080", token });
 * await startCollector({ config, logger, sink });
 * ```
 */
export class OtlpSink implements Sink {
  readonly #exporter: OTLPMetricExporter;
  readonly #rest: Sink;
  readonly #url: string;

  constructor(options: OtlpSinkOptions) {
    const metadata = new Metadata();
    if (options.token) metadata.set("authorization", `Bearer ${options.token}`);
    this.#url = options.otlpUrl;
    this.#exporter = new OTLPMetricExporter({
      url: options.otlpUrl,
      metadata,
      timeoutMillis: options.timeoutMs ?? 30_000,
    });
    this.#rest =
      options.rest ??
      new HttpJsonSink({ url: options.restUrl, token: options.token, timeoutMs: options.timeoutMs });
  }

  async send(batch: ShipBatch, signal: AbortSignal): Promise<void> {
    if (batch.kind !== "usage") return this.#rest.send(batch, signal);
    if (batch.samples.length === 0) return;
    for (const rm of observationsToResourceMetrics(batch.samples)) {
      signal.throwIfAborted();
      const result = await new Promise<ExportResult>((resolve) => this.#exporter.export(rm, resolve));
      if (result.code !== ExportResultCode.SUCCESS) {
        // The exporter already retried what OTLP calls retryable; the shipper's backoff covers the rest.
        throw new SinkError(
          `OTLP export to ${this.#url} failed: ${result.error?.message ?? "unknown error"}`,
          true,
          undefined,
          { cause: result.error },
        );
      }
    }
  }

  async close(): Promise<void> {
    await this.#exporter.shutdown();
    await this.#rest.close?.();
  }
}
