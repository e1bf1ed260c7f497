import * as grpc from "@grpc/grpc-js";
import { decodeExportMetricsRequest, decodeExportMetricsResponse } from "../decode/decode.js";
import { encodeExportMetricsRequest, encodeExportMetricsResponse } from "../encode/encode.js";
import { OtlpDecodeError } from "../errors.js";
import { METRICS_EXPORT_PATH } from "../otlp/otlp-proto.js";
import type { ExportMetricsServiceRequest, ExportMetricsServiceResponse } from "../otlp/otlp-types.js";

/**
 * What the server side of `MetricsService/Export` receives: the decoded request, or the
 * decode error. Deserialising never throws, because grpc-js would turn a throw into
 * `INTERNAL`, while OTLP wants a malformed request answered with `INVALID_ARGUMENT`.
 */
export type IncomingMetricsExport =
  | { ok: true; request: ExportMetricsServiceRequest; byteLength: number }
  | { ok: false; error: OtlpDecodeError; byteLength: number };

function deserializeIncoming(buffer: Buffer): IncomingMetricsExport {
  try {
    return { ok: true, request: decodeExportMetricsRequest(buffer), byteLength: buffer.length };
  } catch (error) {
    const decodeError =
      error instanceof OtlpDecodeError
        ? error
        : new OtlpDecodeError("OTLP_MALFORMED_PROTOBUF", String(error), { cause: error });
    return { ok: false, error: decodeError, byteLength: buffer.length };
  }
}

/**
 * The gRPC service definition of `opentelemetry.proto.collector.metrics.v1.MetricsService`,
 * serialised with this package's codec. Mount it with `server.addService(metricsServiceDefinition,
 * createMetricsServiceImplementation(...))`; clients built from it send typed requests.
 *
 * @example
 * ```ts
 * const server = new grpc.Server();
 * server.addService(metricsServiceDefinition, createMetricsServiceImplementation({ onExport }));
 * ```
 */
export const metricsServiceDefinition = {
  export: {
    path: METRICS_EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    originalName: "Export",
    requestSerialize: (request: ExportMetricsServiceRequest): Buffer =>
      Buffer.from(encodeExportMetricsRequest(request)),
    requestDeserialize: deserializeIncoming,
    responseSerialize: (response: ExportMetricsServiceResponse): Buffer =>
      Buffer.from(encodeExportMetricsResponse(response)),
    responseDeserialize: (buffer: Buffer): ExportMetricsServiceResponse =>
      decodeExportMetricsResponse(buffer),
  },
} satisfies grpc.ServiceDefinition;

/** What an export handler learns about the call besides the request. */
export interface MetricsExportContext {
  /** gRPC metadata (headers) of the call, e.g. an `authorization` token. */
  metadata: grpc.Metadata;
  /** The peer address as grpc-js reports it. */
  peer: string;
  /** Size of the protobuf message in bytes. */
  byteLength: number;
}

/** Options of {@link createMetricsServiceImplementation}. */
export interface MetricsServiceImplementationOptions {
  /**
   * Stores one decoded request and says what was rejected (see `createExportMetricsResponse`).
   * Required.
   */
  onExport: (
    request: ExportMetricsServiceRequest,
    context: MetricsExportContext,
  ) => ExportMetricsServiceResponse | Promise<ExportMetricsServiceResponse>;
  /**
   * Maps an error thrown by `onExport` to a gRPC status. OTLP exporters retry `UNAVAILABLE`,
   * so a storage outage keeps the data in the sender's spool instead of losing it.
   * @default () => ({ code: grpc.status.UNAVAILABLE, details: "receiver temporarily unavailable" })
   */
  onError?: (error: unknown) => { code: grpc.status; details: string };
  /**
   * Called for every request that failed to decode, before it is answered with
   * `INVALID_ARGUMENT` (which exporters do not retry). Use it to count and log.
   * @default undefined
   */
  onDecodeError?: (error: OtlpDecodeError, context: MetricsExportContext) => void;
}

const defaultOnError = (): { code: grpc.status; details: string } => ({
  code: grpc.status.UNAVAILABLE,
  details: "receiver temporarily unavailable",
});

/**
 * Builds the handler object for {@link metricsServiceDefinition}: decode errors become
 * `INVALID_ARGUMENT`, handler failures go through `onError`, and a handler's partial success
 * is sent back as the OTLP response.
 *
 * @example
 * ```ts
 * server.addService(metricsServiceDefinition, createMetricsServiceImplementation({
 *   onExport: async (request) => {
 *     const { samples, rejected } = decodeObservations(request);
 *     await store(samples);
 *     return createExportMetricsResponse(rejected.count, rejected.message);
 *   },
 * }));
 * ```
 */
export function createMetricsServiceImplementation(
  options: MetricsServiceImplementationOptions,
): grpc.UntypedServiceImplementation {
  const onError = options.onError ?? defaultOnError;
  const exportHandler: grpc.handleUnaryCall<IncomingMetricsExport, ExportMetricsServiceResponse> = (
    call,
    callback,
  ) => {
    const incoming = call.request;
    const context: MetricsExportContext = {
      metadata: call.metadata,
      peer: call.getPeer(),
      byteLength: incoming.byteLength,
    };
    if (!incoming.ok) {
      options.onDecodeError?.(incoming.error, context);
      callback({
        code: grpc.status.INVALID_ARGUMENT,
        details: `${incoming.error.code}: ${incoming.error.message}`,
      });
      return;
    }
    Promise.resolve()
      .then(() => options.onExport(incoming.request, context))
      .then(
        (response) => callback(null, response),
        (error: unknown) => callback(onError(error)),
      );
  };
  return { export: exportHandler };
}
