import { HttpJsonSink } from "./http-json-sink.js";
import type { OtlpMetricsClient } from "./otlp-metrics-client.js";
import type { prepareUsageExport, rejectedSamplesOf } from "./otlp-usage-export.js";
import type { ShipBatch, Sink, SinkResult } from "./sink.js";

/** Options of {@link OtlpSink}. */
export type OtlpSinkOptions = {
  /** OTLP/gRPC endpoint of the data plane (or the site's OpenTelemetry Collector), e.g. `http://host:4317`. */
  otlpUrl: string;
  /** Base URL of the data plane's REST API, for events and job records. */
  restUrl: string;
  /** Bearer token of a collector-scoped API token, sent on both paths. @default none */
  token?: string;
  /**
   * Metric and attribute names of the export: the semantic conventions', or the `jobsight.*`
   * names of release 0.1 (kept for one release).
   * @default "conventions"
   */
  names?: "conventions" | "legacy";
  /** Time limit of one export or request. @default 30000 */
  timeoutMs?: number;
  /** Where events and job records go. @default new HttpJsonSink({ url: restUrl, token, timeoutMs }) */
  rest?: Sink;
};

/**
 * Ships usage samples as OTLP metrics over gRPC (one `MetricsService/Export` per batch, the bearer
 * token in the gRPC metadata; see {@link OtlpMetricsClient}), and events and job records through
 * the REST JSON ingest, which OTLP metrics cannot carry. An OTLP partial success resolves with the
 * samples the receiver rejected points of (the data plane names them; see `rejectedSamplesOf`),
 * so the shipper sets aside just those, like the items a REST answer names; samples that fail
 * the schema are set aside without being sent.
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
  #otlp?: Promise<{
    client: OtlpMetricsClient;
    prepare: typeof prepareUsageExport;
    rejectedOf: typeof rejectedSamplesOf;
  }>;

  constructor(options: OtlpSinkOptions) {
    this.#options = options;
    this.#rest =
      options.rest ??
      new HttpJsonSink({ url: options.restUrl, token: options.token, timeoutMs: options.timeoutMs });
  }

  // gRPC and the bridge are loaded with the first usage batch: some 30 MB of resident memory
  // that a collector shipping over REST, or not yet shipping, never pays.
  #load() {
    this.#otlp ??= (async () => {
      const [{ OtlpMetricsClient }, { prepareUsageExport, rejectedSamplesOf }] = await Promise.all([
        import("./otlp-metrics-client.js"),
        import("./otlp-usage-export.js"),
      ]);
      const { otlpUrl: url, token, timeoutMs } = this.#options;
      const client = new OtlpMetricsClient({ url, token, timeoutMs });
      return { client, prepare: prepareUsageExport, rejectedOf: rejectedSamplesOf };
    })();
    return this.#otlp;
  }

  async send(batch: ShipBatch, signal: AbortSignal): Promise<SinkResult | undefined> {
    if (batch.kind !== "usage") return (await this.#rest.send(batch, signal)) ?? undefined;
    if (batch.samples.length === 0) return undefined;
    const { client, prepare, rejectedOf } = await this.#load();
    const usage = prepare(batch.samples, { names: this.#options.names });
    if (!usage.request) return { rejected: usage.invalid };
    const answer = await client.export(usage.request, signal);
    const rejected = [...usage.invalid, ...rejectedOf(usage, answer)].sort((a, b) => a.index - b.index);
    return rejected.length > 0 ? { rejected } : undefined;
  }

  async close(): Promise<void> {
    if (this.#otlp) (await this.#otlp).client.close();
    await this.#rest.close?.();
  }
}
