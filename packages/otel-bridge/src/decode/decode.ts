import type protobuf from "protobufjs";
import { OtlpDecodeError } from "../errors.js";
import { otlpMessageTypes } from "../otlp/otlp-proto.js";
import type { ExportMetricsServiceRequest, ExportMetricsServiceResponse } from "../otlp/otlp-types.js";
import { validateProtobuf } from "./protobuf-validate.js";
import { readExportRequest, readExportResponse } from "./read-otlp.js";
import { readExportRequestProtobuf } from "./read-protobuf.js";

function decodeProtobuf(bytes: Uint8Array, type: protobuf.Type): unknown {
  validateProtobuf(bytes, type);
  try {
    // The decoded message is read as is (64-bit fields as Long, bytes as Buffer): a toObject()
    // pass would double the cost for nothing the readers cannot handle themselves.
    return type.decode(bytes);
  } catch (error) {
    // The structural walk above catches nearly everything; this is the backstop.
    const truncated = error instanceof RangeError && /index out of range/.test(error.message);
    throw new OtlpDecodeError(
      truncated ? "OTLP_TRUNCATED" : "OTLP_MALFORMED_PROTOBUF",
      `protobuf decoding failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function parseJson(body: string | Uint8Array): unknown {
  const text = typeof body === "string" ? body : new TextDecoder("utf-8", { fatal: false }).decode(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    if (error instanceof RangeError) {
      throw new OtlpDecodeError("OTLP_NESTING_TOO_DEEP", "JSON nested too deeply to parse", { cause: error });
    }
    throw new OtlpDecodeError("OTLP_MALFORMED_JSON", (error as Error).message, { cause: error });
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new OtlpDecodeError("OTLP_MALFORMED_JSON", "the top level of an OTLP/JSON body must be an object");
  }
  return parsed;
}

/**
 * Decodes an `ExportMetricsServiceRequest` from OTLP protobuf bytes (a gRPC message or an
 * OTLP/HTTP `application/x-protobuf` body). An empty body is a valid, empty request.
 *
 * @throws {OtlpDecodeError} `OTLP_TRUNCATED`, `OTLP_MALFORMED_PROTOBUF`, `OTLP_INVALID_FIELD`
 *   or `OTLP_NESTING_TOO_DEEP`.
 * @example
 * ```ts
 * const request = decodeExportMetricsRequest(body);
 * for (const rm of request.resourceMetrics) console.log(rm.scopeMetrics.length);
 * ```
 */
export function decodeExportMetricsRequest(bytes: Uint8Array): ExportMetricsServiceRequest {
  return readExportRequestProtobuf(bytes);
}

/**
 * Decodes an `ExportMetricsServiceRequest` from an OTLP/JSON body (lowerCamelCase keys,
 * 64-bit integers as decimal strings or numbers, enums as integers, trace/span ids in hex).
 *
 * @throws {OtlpDecodeError} `OTLP_MALFORMED_JSON`, `OTLP_INVALID_FIELD` or `OTLP_NESTING_TOO_DEEP`.
 * @example
 * ```ts
 * const request = decodeExportMetricsRequestJson('{"resourceMetrics":[]}');
 * ```
 */
export function decodeExportMetricsRequestJson(body: string | Uint8Array): ExportMetricsServiceRequest {
  return readExportRequest(parseJson(body));
}

/**
 * Decodes an `ExportMetricsServiceResponse` from protobuf bytes (what a receiver answered).
 *
 * @example
 * ```ts
 * const { partialSuccess } = decodeExportMetricsResponse(bytes);
 * ```
 */
export function decodeExportMetricsResponse(bytes: Uint8Array): ExportMetricsServiceResponse {
  return readExportResponse(decodeProtobuf(bytes, otlpMessageTypes.exportResponse));
}

/**
 * Decodes an `ExportMetricsServiceResponse` from an OTLP/JSON body.
 *
 * @example
 * ```ts
 * decodeExportMetricsResponseJson('{"partialSuccess":{"rejectedDataPoints":"2"}}');
 * ```
 */
export function decodeExportMetricsResponseJson(body: string | Uint8Array): ExportMetricsServiceResponse {
  return readExportResponse(parseJson(body));
}

/** The two OTLP/HTTP body encodings. */
export type OtlpHttpEncoding = "protobuf" | "json";

/**
 * Picks the OTLP/HTTP encoding from a `Content-Type` header (`application/x-protobuf` or
 * `application/json`, parameters ignored).
 *
 * @throws {OtlpDecodeError} `OTLP_UNSUPPORTED_CONTENT_TYPE` for anything else.
 * @example
 * ```ts
 * otlpHttpEncoding("application/json; charset=utf-8"); // "json"
 * ```
 */
export function otlpHttpEncoding(contentType: string | undefined): OtlpHttpEncoding {
  const mediaType = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (mediaType === "application/x-protobuf" || mediaType === "application/protobuf") return "protobuf";
  if (mediaType === "application/json") return "json";
  throw new OtlpDecodeError(
    "OTLP_UNSUPPORTED_CONTENT_TYPE",
    `content type ${JSON.stringify(contentType ?? "")} is neither application/x-protobuf nor application/json`,
  );
}

/**
 * Decodes an OTLP/HTTP `/v1/metrics` body in whichever encoding its content type names.
 * Decompression (`Content-Encoding: gzip`) is the HTTP server's job and must happen first.
 *
 * @example
 * ```ts
 * const request = decodeExportMetricsHttpBody(body, req.headers["content-type"]);
 * ```
 */
export function decodeExportMetricsHttpBody(
  body: Uint8Array,
  contentType: string | undefined,
): ExportMetricsServiceRequest {
  return otlpHttpEncoding(contentType) === "json"
    ? decodeExportMetricsRequestJson(body)
    : decodeExportMetricsRequest(body);
}
