import * as grpc from "@grpc/grpc-js";
import {
  type ExportMetricsServiceResponse,
  encodeExportMetricsResponse,
  encodeRejectedSamples,
  METRICS_EXPORT_PATH,
  REJECTED_SAMPLES_METADATA_KEY,
} from "@jobsight/otel-bridge";
import { ReloadableGrpcCredentials } from "../../platform/grpc-tls-credentials.js";
import type { TlsMaterial } from "../../platform/tls.js";
import { otlpFailure } from "./otlp-failure.js";
import type { OtlpIngest } from "./otlp-ingest.js";
import type { OtlpLogger } from "./otlp-logger.js";
import { encodeRpcStatus } from "./rpc-status.js";

/** Options of {@link startGrpcReceiver}. */
export type GrpcReceiverOptions = {
  /** Authorisation and storage of exports. */
  ingest: OtlpIngest;
  /** Address to bind. @default "127.0.0.1" */
  host?: string;
  /** Port; 0 picks a free one. @default 4317 */
  port?: number;
  /** Largest message accepted after decompression, in bytes. @default 20971520 */
  maxMessageBytes?: number;
  /** Where refusals and failures are logged. @default silent */
  log?: OtlpLogger;
  /**
   * Certificate and key to serve with (and the CA client certificates must chain to, under mutual
   * TLS), from `loadTlsMaterial`. @default undefined (plaintext)
   */
  tls?: TlsMaterial;
};

/** A listening OTLP/gRPC receiver. */
export type GrpcReceiver = {
  /** `https://host:port` (`http://` without TLS), as OTLP gRPC exporters take it. */
  url: string;
  port: number;
  /** Serves new connections with renewed material (TLS listeners only; ignored without TLS). */
  setTls(material: TlsMaterial): void;
  /** Stops taking calls, lets the ones in flight finish (up to `timeoutMs`, then cuts them off). */
  close(timeoutMs?: number): Promise<void>;
};

// Our own definition of the service rather than otel-bridge's ready-made one: the request stays
// raw bytes until the caller is authenticated and admitted, so nobody without a token makes us
// spend CPU decoding, and a full ingest gate refuses before decoding.
const exportDefinition = {
  export: {
    path: METRICS_EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    originalName: "Export",
    requestSerialize: (bytes: Buffer) => bytes,
    requestDeserialize: (bytes: Buffer) => bytes,
    responseSerialize: (response: ExportMetricsServiceResponse) =>
      Buffer.from(encodeExportMetricsResponse(response)),
    responseDeserialize: (bytes: Buffer) => bytes,
  },
} satisfies grpc.ServiceDefinition;

function authorizationOf(metadata: grpc.Metadata): string | undefined {
  const value = metadata.get("authorization")[0];
  return typeof value === "string" ? value : undefined;
}

/**
 * Starts the OTLP/gRPC receiver (`opentelemetry.proto.collector.metrics.v1.MetricsService/Export`,
 * gzip-compressed messages included). Each call: bearer token from the `authorization` metadata,
 * then decode, then exactly-once storage committed before the answer. Failures follow the OTLP
 * specification: `INVALID_ARGUMENT` for a malformed message, `UNAVAILABLE` with a `RetryInfo`
 * while PostgreSQL is unreachable, `RESOURCE_EXHAUSTED` with a `RetryInfo` under back-pressure.
 * A partial success also names the samples whose points were rejected, in the trailing metadata
 * `jobsight-rejected-samples-bin` (`REJECTED_SAMPLES_METADATA_KEY`), so a collector sets aside
 * exactly those.
 *
 * @example
 * ```ts
 * const receiver = await startGrpcReceiver({ ingest, port: 4317, tls: await loadTlsMaterial(config.tls) });
 * // new OTLPMetricExporter({ url: receiver.url, metadata }) …
 * await receiver.close();
 * ```
 */
export async function startGrpcReceiver(options: GrpcReceiverOptions): Promise<GrpcReceiver> {
  const { ingest, log } = options;
  const maxBytes = options.maxMessageBytes ?? 20 * 1024 * 1024;
  const server = new grpc.Server({
    "grpc.max_receive_message_length": maxBytes,
    "grpc.max_send_message_length": 4 * 1024 * 1024,
  });
  const handler: grpc.handleUnaryCall<Buffer, ExportMetricsServiceResponse> = (call, callback) => {
    const started = performance.now();
    ingest
      .authorize(authorizationOf(call.metadata))
      .then((principal) => ingest.export(principal, (o) => ingest.decode(call.request, "protobuf", o)))
      .then(
        (outcome) => {
          const { response, rejectedSamples, ...figures } = outcome;
          log?.debug(
            { transport: "grpc", ms: performance.now() - started, ...figures },
            "otlp export stored",
          );
          if (rejectedSamples.length === 0) return callback(null, response);
          // OTLP's partial success only counts; Jobsight collectors read which samples from this.
          const trailer = new grpc.Metadata();
          trailer.set(REJECTED_SAMPLES_METADATA_KEY, encodeRejectedSamples(rejectedSamples));
          callback(null, response, trailer);
        },
        (error: unknown) => {
          const failure = otlpFailure(error);
          const metadata = new grpc.Metadata();
          if (failure.status.retryAfterSeconds !== undefined) {
            metadata.set("grpc-status-details-bin", Buffer.from(encodeRpcStatus(failure.status)));
          }
          if (failure.serverFault) log?.error({ err: error, transport: "grpc" }, "otlp export failed");
          else log?.warn({ transport: "grpc", message: failure.status.message }, "otlp export refused");
          callback({ code: failure.grpcCode, details: failure.status.message, metadata });
        },
      );
  };
  server.addService(exportDefinition, { export: handler });
  const host = options.host ?? "127.0.0.1";
  const address = host.includes(":") ? `[${host}]` : host;
  const reloadable = options.tls ? new ReloadableGrpcCredentials(options.tls) : undefined;
  const credentials = reloadable ?? grpc.ServerCredentials.createInsecure();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${address}:${options.port ?? 4317}`, credentials, (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  return {
    url: `${options.tls ? "https" : "http"}://${address}:${port}`,
    port,
    setTls: (material) => reloadable?.update(material),
    close: (timeoutMs = 20_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, timeoutMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
