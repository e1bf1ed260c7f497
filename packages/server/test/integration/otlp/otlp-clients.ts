import * as grpc from "@grpc/grpc-js";
import { METRICS_EXPORT_PATH } from "@jobsight/otel-bridge";
import protobuf from "protobufjs";

/** What a raw gRPC `Export` call came back with. */
export type GrpcAnswer = { error?: grpc.ServiceError; response?: Buffer };

/**
 * A gRPC client that sends raw bytes as an `Export` message, so tests can send what no exporter
 * would (malformed, truncated, oversized).
 */
export class RawGrpcClient {
  readonly #client: grpc.Client;

  constructor(url: string) {
    this.#client = new grpc.Client(url.replace(/^https?:\/\//, ""), grpc.credentials.createInsecure());
  }

  export(bytes: Uint8Array, token?: string): Promise<GrpcAnswer> {
    const metadata = new grpc.Metadata();
    if (token) metadata.set("authorization", `Bearer ${token}`);
    return new Promise((resolve) =>
      this.#client.makeUnaryRequest(
        METRICS_EXPORT_PATH,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from(bytes),
        metadata,
        (error, response) => resolve(error ? { error } : { response }),
      ),
    );
  }

  close(): void {
    this.#client.close();
  }
}

const statusRoot = protobuf.Root.fromJSON({
  nested: {
    Status: {
      fields: {
        code: { type: "int32", id: 1 },
        message: { type: "string", id: 2 },
        details: { rule: "repeated", type: "Any", id: 3 },
      },
    },
    Any: { fields: { type_url: { type: "string", id: 1 }, value: { type: "bytes", id: 2 } } },
    RetryInfo: { fields: { retry_delay: { type: "Duration", id: 1 } } },
    Duration: { fields: { seconds: { type: "int64", id: 1 }, nanos: { type: "int32", id: 2 } } },
  },
});

/** A decoded `google.rpc.Status`, with the retry delay of its `RetryInfo` in seconds if any. */
export type DecodedStatus = { code: number; message: string; retryDelaySeconds?: number };

/** Decodes a protobuf `google.rpc.Status` (an OTLP/HTTP error body or `grpc-status-details-bin`). */
export function decodeStatus(bytes: Uint8Array): DecodedStatus {
  const Status = statusRoot.lookupType("Status");
  const RetryInfo = statusRoot.lookupType("RetryInfo");
  const status = Status.toObject(Status.decode(bytes), { longs: Number, defaults: true }) as {
    code: number;
    message: string;
    details: { type_url: string; value: Uint8Array }[];
  };
  const out: DecodedStatus = { code: status.code, message: status.message };
  for (const detail of status.details) {
    if (!detail.type_url.endsWith("google.rpc.RetryInfo")) continue;
    const info = RetryInfo.toObject(RetryInfo.decode(detail.value), { longs: Number, defaults: true }) as {
      retry_delay: { seconds: number; nanos: number };
    };
    out.retryDelaySeconds = info.retry_delay.seconds + info.retry_delay.nanos / 1e9;
  }
  return out;
}

/** The RetryInfo delay a gRPC error carries in `grpc-status-details-bin`, if any. */
export function grpcRetryDelay(error: grpc.ServiceError | undefined): number | undefined {
  const details = error?.metadata?.get("grpc-status-details-bin")[0];
  return Buffer.isBuffer(details) ? decodeStatus(details).retryDelaySeconds : undefined;
}

/** POSTs an OTLP/HTTP body. */
export async function postOtlp(
  url: string,
  body: Uint8Array | string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(url, { method: "POST", headers, body });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}
