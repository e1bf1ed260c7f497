/**
 * Every error code this package can throw, with the sentence the README documents for it.
 * A test compares this catalogue with the README table so the two cannot drift.
 */
export const otelBridgeErrorCatalogue = {
  OTLP_TRUNCATED:
    "The body ends before the message does (cut short, or a length prefix points past the end).",
  OTLP_MALFORMED_PROTOBUF:
    "The bytes are not a valid protobuf encoding of the message: field number 0, an invalid or wrong wire type for a known field, a varint longer than 10 bytes.",
  OTLP_MALFORMED_JSON: "The body is not valid JSON text, or its top level is not an object.",
  OTLP_INVALID_FIELD:
    "A field has the wrong type or an impossible value (for example a string where an array belongs, a non-integer in an int64, a bad hex id).",
  OTLP_NESTING_TOO_DEEP: "Messages or AnyValues are nested deeper than the decoder allows.",
  OTLP_UNSUPPORTED_CONTENT_TYPE:
    "An OTLP/HTTP body arrived with a content type that is neither protobuf nor JSON.",
  OBSERVATION_INVALID:
    "A usage sample fails the UsageSample schema or its time is not RFC 3339, or a metric cannot be handed to the SDK exporter.",
} as const;

/** A stable error code of `@jobsight/otel-bridge`. */
export type OtelBridgeErrorCode = keyof typeof otelBridgeErrorCatalogue;

/** Base class of every error this package throws; switch on `code`, never on `message`. */
export class OtelBridgeError extends Error {
  readonly code: OtelBridgeErrorCode;

  constructor(code: OtelBridgeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OtelBridgeError";
    this.code = code;
  }
}

/**
 * An OTLP request or response could not be decoded.
 *
 * @example
 * ```ts
 * try {
 *   decodeExportMetricsRequest(body);
 * } catch (error) {
 *   if (error instanceof OtlpDecodeError) reply(400, `${error.code}: ${error.message}`);
 * }
 * ```
 */
export class OtlpDecodeError extends OtelBridgeError {
  /** Where in the message the problem is (`resourceMetrics[0].scopeMetrics[2]...`), when known. */
  readonly path: string | undefined;

  constructor(
    code: Exclude<OtelBridgeErrorCode, "OBSERVATION_INVALID">,
    message: string,
    options?: { path?: string; cause?: unknown },
  ) {
    super(code, options?.path ? `${options.path}: ${message}` : message, { cause: options?.cause });
    this.name = "OtlpDecodeError";
    this.path = options?.path;
  }
}

/** A usage sample cannot be turned into OTLP metrics. */
export class ObservationEncodeError extends OtelBridgeError {
  constructor(message: string) {
    super("OBSERVATION_INVALID", message);
    this.name = "ObservationEncodeError";
  }
}
