import protobuf from "protobufjs";

/** `type_url` of `google.rpc.RetryInfo` inside a `google.protobuf.Any`. */
export const RETRY_INFO_TYPE_URL = "type.googleapis.com/google.rpc.RetryInfo";

/**
 * A `google.rpc.Status`: what OTLP/HTTP failure bodies carry and what gRPC sends in the
 * `grpc-status-details-bin` trailer. `retryAfterSeconds` becomes a `google.rpc.RetryInfo` detail,
 * the signal OTLP clients read to retry `UNAVAILABLE` and `RESOURCE_EXHAUSTED` after a delay.
 */
export type RpcStatus = {
  /** The gRPC status code (OTLP/HTTP clients only log it). */
  code: number;
  /** Developer-facing message in English. */
  message: string;
  /** Seconds the client should wait before retrying; absent for failures not worth a retry. */
  retryAfterSeconds?: number;
};

function durationParts(seconds: number): { seconds: number; nanos: number } {
  const whole = Math.floor(seconds);
  return { seconds: whole, nanos: Math.round((seconds - whole) * 1e9) };
}

/**
 * Encodes a {@link RpcStatus} as protobuf (field numbers of google/rpc/status.proto,
 * error_details.proto and duration.proto); written by hand because no npm package ships them.
 *
 * @example
 * ```ts
 * metadata.set("grpc-status-details-bin", Buffer.from(encodeRpcStatus({ code: 14, message: "down", retryAfterSeconds: 2 })));
 * ```
 */
export function encodeRpcStatus(status: RpcStatus): Uint8Array {
  const writer = protobuf.Writer.create();
  if (status.code !== 0) writer.uint32(8).int32(status.code);
  if (status.message !== "") writer.uint32(18).string(status.message);
  if (status.retryAfterSeconds !== undefined) {
    const { seconds, nanos } = durationParts(status.retryAfterSeconds);
    // Status.details (3) → Any { type_url (1), value (2) = RetryInfo { retry_delay (1) = Duration } }
    writer.uint32(26).fork();
    writer.uint32(10).string(RETRY_INFO_TYPE_URL);
    writer.uint32(18).fork();
    writer.uint32(10).fork();
    if (seconds !== 0) writer.uint32(8).int64(seconds);
    if (nanos !== 0) writer.uint32(16).int32(nanos);
    writer.ldelim();
    writer.ldelim();
    writer.ldelim();
  }
  return writer.finish();
}

/**
 * The proto3 JSON form of a {@link RpcStatus}, for OTLP/HTTP clients that sent JSON.
 *
 * @example
 * ```ts
 * encodeRpcStatusJson({ code: 3, message: "bad body" }); // '{"code":3,"message":"bad body","details":[]}'
 * ```
 */
export function encodeRpcStatusJson(status: RpcStatus): string {
  const details: unknown[] = [];
  if (status.retryAfterSeconds !== undefined) {
    const { seconds, nanos } = durationParts(status.retryAfterSeconds);
    const fraction = nanos === 0 ? "" : `.${String(nanos).padStart(9, "0").replace(/0+$/, "")}`;
    details.push({ "@type": RETRY_INFO_TYPE_URL, retryDelay: `${seconds}${fraction}s` });
  }
  return JSON.stringify({ code: status.code, message: status.message, details });
}
