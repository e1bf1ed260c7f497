import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import {
  decodeRejectedSamples,
  type ExportMetricsServiceRequest,
  type ExportMetricsServiceResponse,
  metricsServiceDefinition,
  REJECTED_SAMPLES_METADATA_KEY,
  type RejectedSample,
} from "@jobsight/otel-bridge";
import { SinkError } from "../errors.js";

/**
 * gRPC statuses that say the export itself is wrong, so resending it cannot help: INVALID_ARGUMENT,
 * NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, UNIMPLEMENTED. Like HTTP 401/403, a refused
 * token (UNAUTHENTICATED, PERMISSION_DENIED) is retried: the batch is fine, the credentials are not.
 */
const PERMANENT_GRPC_STATUSES = new Set([3, 5, 6, 9, 12]);

/** Options of {@link OtlpMetricsClient}. */
export type OtlpMetricsClientOptions = {
  /** OTLP/gRPC endpoint, `http://host:port` (plaintext) or `https://host:port` (TLS). */
  url: string;
  /** Bearer token sent as `authorization` metadata. @default none */
  token?: string;
  /** Time limit of one export. @default 30000 */
  timeoutMs?: number;
  /** Where the OpenTelemetry exporter settings are read (certificates, compression). @default process.env */
  env?: NodeJS.ProcessEnv;
};

/** What the receiver answered to an export it accepted. */
export type OtlpExportAnswer = {
  /** The OTLP response: `partialSuccess` counts the rejected data points. */
  response: ExportMetricsServiceResponse;
  /** The samples the receiver named as holding those points; `undefined` when it named none. */
  rejectedSamples: RejectedSample[] | undefined;
};

type MetricsServiceClient = grpc.Client & {
  export: (
    request: ExportMetricsServiceRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<ExportMetricsServiceResponse>,
  ) => grpc.ClientUnaryCall;
};

function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[`OTEL_EXPORTER_OTLP_METRICS_${name}`]?.trim() || env[`OTEL_EXPORTER_OTLP_${name}`]?.trim();
}

function credentialsFor(url: URL, env: NodeJS.ProcessEnv): grpc.ChannelCredentials {
  if (url.protocol !== "https:") return grpc.credentials.createInsecure();
  // The same files the OpenTelemetry exporter reads, so a site's TLS setup keeps working.
  const file = (name: string) => {
    const path = setting(env, name);
    return path ? readFileSync(path) : null;
  };
  return grpc.credentials.createSsl(file("CERTIFICATE"), file("CLIENT_KEY"), file("CLIENT_CERTIFICATE"));
}

/**
 * One OTLP/gRPC `MetricsService/Export` call per export, encoded by `@jobsight/otel-bridge`. Unlike
 * the OpenTelemetry exporter, which logs a partial success and reports SUCCESS, it hands back the
 * response and the samples a Jobsight receiver names in its trailing metadata, so the caller can
 * tell which samples were rejected. It does not retry: failures throw a {@link SinkError} whose
 * `retryable` follows the OTLP table of gRPC statuses, and the shipper backs off.
 *
 * @example
 * ```ts
 * const client = new OtlpMetricsClient({ url: "http://jobsight:4317", token });
 * const { response, rejectedSamples } = await client.export(encodeObservations(samples), signal);
 * ```
 */
export class OtlpMetricsClient {
  readonly #client: MetricsServiceClient;
  readonly #metadata = new grpc.Metadata();
  readonly #url: string;
  readonly #timeoutMs: number;

  constructor(options: OtlpMetricsClientOptions) {
    const env = options.env ?? process.env;
    const url = new URL(options.url);
    const Client = grpc.makeClientConstructor(metricsServiceDefinition, "MetricsService");
    const gzip = setting(env, "COMPRESSION") === "gzip";
    this.#client = new Client(url.host, credentialsFor(url, env), {
      ...(gzip ? { "grpc.default_compression_algorithm": 2 } : {}),
    }) as unknown as MetricsServiceClient;
    if (options.token) this.#metadata.set("authorization", `Bearer ${options.token}`);
    this.#url = options.url;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /**
   * Sends one export; resolves once the receiver accepted it (wholly or in part).
   *
   * @throws {SinkError} when the call fails or `signal` aborts it.
   */
  export(request: ExportMetricsServiceRequest, signal: AbortSignal): Promise<OtlpExportAnswer> {
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      let response: ExportMetricsServiceResponse | undefined;
      let failure: grpc.ServiceError | null = null;
      const call = this.#client.export(
        request,
        this.#metadata,
        { deadline: Date.now() + this.#timeoutMs },
        (error, value) => {
          failure = error;
          response = value;
        },
      );
      const abort = () => call.cancel();
      signal.addEventListener("abort", abort, { once: true });
      // grpc-js calls back first and then reports the status, which carries the trailing metadata.
      call.on("status", (status: grpc.StatusObject) => {
        signal.removeEventListener("abort", abort);
        if (failure || !response) {
          const code = failure?.code ?? status.code;
          reject(
            new SinkError(
              `OTLP export to ${this.#url} failed: ${failure?.details || status.details || `status ${code}`}`,
              !PERMANENT_GRPC_STATUSES.has(code),
              undefined,
              { cause: failure ?? undefined },
            ),
          );
          return;
        }
        const named = decodeRejectedSamples(status.metadata.get(REJECTED_SAMPLES_METADATA_KEY)[0]);
        resolve({ response, rejectedSamples: named });
      });
    });
  }

  /** Closes the channel. */
  close(): void {
    this.#client.close();
  }
}
