import { otlpMessageTypes } from "../otlp/otlp-proto.js";
import type { ExportMetricsServiceRequest, ExportMetricsServiceResponse } from "../otlp/otlp-types.js";
import { writeExportRequest, writeExportResponse } from "./write-otlp.js";

/**
 * Builds the response a receiver sends back. `partialSuccess` is set only when something was
 * rejected or there is a message, because the OTLP spec treats an empty one as full success.
 *
 * @example
 * ```ts
 * createExportMetricsResponse(3, "3 points of unknown metrics were rejected");
 * createExportMetricsResponse(0); // {} — full success
 * ```
 */
export function createExportMetricsResponse(
  rejectedDataPoints: number | bigint,
  errorMessage = "",
): ExportMetricsServiceResponse {
  const rejected = BigInt(rejectedDataPoints);
  if (rejected === 0n && errorMessage === "") return {};
  return { partialSuccess: { rejectedDataPoints: rejected, errorMessage } };
}

/**
 * Encodes an `ExportMetricsServiceResponse` as protobuf (gRPC, or OTLP/HTTP with
 * `Content-Type: application/x-protobuf`).
 *
 * @example
 * ```ts
 * const bytes = encodeExportMetricsResponse(createExportMetricsResponse(2, "unknown metric"));
 * ```
 */
export function encodeExportMetricsResponse(response: ExportMetricsServiceResponse): Uint8Array {
  const type = otlpMessageTypes.exportResponse;
  return type.encode(type.fromObject(writeExportResponse(response))).finish();
}

/**
 * Encodes an `ExportMetricsServiceResponse` as OTLP/JSON (`rejectedDataPoints` as a decimal string).
 *
 * @example
 * ```ts
 * res.setHeader("content-type", "application/json").end(encodeExportMetricsResponseJson({}));
 * ```
 */
export function encodeExportMetricsResponseJson(response: ExportMetricsServiceResponse): string {
  return JSON.stringify(writeExportResponse(response));
}

/**
 * Encodes an `ExportMetricsServiceRequest` as protobuf, byte-compatible with what
 * `@opentelemetry/exporter-metrics-otlp-grpc` sends.
 *
 * @example
 * ```ts
 * const body = encodeExportMetricsRequest(encodeObservations(samples));
 * ```
 */
export function encodeExportMetricsRequest(request: ExportMetricsServiceRequest): Uint8Array {
  const type = otlpMessageTypes.exportRequest;
  return type.encode(writeExportRequest(request, "protobuf")).finish();
}

/**
 * Encodes an `ExportMetricsServiceRequest` as OTLP/JSON.
 *
 * @example
 * ```ts
 * await fetch(url, { method: "POST", headers: { "content-type": "application/json" },
 *   body: encodeExportMetricsRequestJson(request) });
 * ```
 */
export function encodeExportMetricsRequestJson(request: ExportMetricsServiceRequest): string {
  return JSON.stringify(writeExportRequest(request, "json"));
}
