import type { observationsToResourceMetrics } from "@jobsight/otel-bridge";
import type { ExportResult } from "@opentelemetry/core";
import type { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-grpc";
import { SinkError } from "../errors.js";
import { HttpJsonSink } from "./http-json-sink.js";
import type { ShipBatch, Sink, SinkResult } from "./sink.js";

/**
 * gRPC statuses that say the export itself is wrong, so resending it cannot help: INVALID_ARGUMENT,
 * NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, UNIMPLEMENTED. Like HTTP 401/403, a refused
 * token (UNAUTHENTICATED, PERMISSION_DENIED) is retried: the batch is fine, the credentials are not.
 */
const PERMANENT_GRPC_STATUSES = new Set([3, 5, 6, 9, 12]);

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
  readonly #options: OtlpSinkOptions;
  readonly #rest: Sink;
  readonly #url: string;
  #otlp?: Promise<{ exporter: OTLPMetricExporter; encode: typeof observationsToResourceMetrics }>;

  constructor(options: OtlpSinkOptions) {
    this.#options = options;
    this.#url = options.otlpUrl;
    this.#rest =
      options.rest ??
      new HttpJsonSink({ url: options.restUrl, token: options.token, timeoutMs: options.timeoutMs });
  }

  // gRPC, the OpenTelemetry exporter and the bridge are loaded with the first usage batch: some
  // 30 MB of resident memory that a collector shipping over REST, or not yet shipping, never pays.
  #load() {
    this.#otlp ??= (async () => {
      const [{ Metadata }, { OTLPMetricExporter }, { observationsToResourceMetrics }] = await Promise.all([
        import("@grpc/grpc-js"),
        import("@opentelemetry/exporter-metrics-otlp-grpc"),
        import("@jobsight/otel-bridge"),
      ]);
      const metadata = new Metadata();
      if (this.#options.token) metadata.set("authorization", `Bearer ${this.#options.token}`);
      const exporter = new OTLPMetricExporter({
        url: this.#options.otlpUrl,
        metadata,
        timeoutMillis: this.#options.timeoutMs ?? 30_000,
      });
      return { exporter, encode: observationsToResourceMetrics };
    })();
    return this.#otlp;
  }

  async send(batch: ShipBatch, signal: AbortSignal): Promise<SinkResult | undefined> {
    if (batch.kind !== "usage") return (await this.#rest.send(batch, signal)) ?? undefined;
    if (batch.samples.length === 0) return undefined;
    const { exporter, encode } = await this.#load();
    for (const rm of encode(batch.samples)) {
      signal.throwIfAborted();
      const result = await new Promise<ExportResult>((resolve) => exporter.export(rm, resolve));
      // ExportResultCode.SUCCESS is 0; @opentelemetry/core is not loaded just for the constant.
      if (result.code !== 0) {
        // The exporter already retried what OTLP calls retryable; the shipper's backoff covers the rest.
        const status = (result.error as { code?: unknown } | undefined)?.code;
        throw new SinkError(
          `OTLP export to ${this.#url} failed: ${result.error?.message ?? "unknown error"}`,
          !(typeof status === "number" && PERMANENT_GRPC_STATUSES.has(status)),
          undefined,
          { cause: result.error },
        );
      }
    }
    // OTLP partial success is not surfaced by the exporter: every point counts as stored.
    return undefined;
  }

  async close(): Promise<void> {
    if (this.#otlp) await (await this.#otlp).exporter.shutdown();
    await this.#rest.close?.();
  }
}
