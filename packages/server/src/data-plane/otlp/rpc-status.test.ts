import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { encodeRpcStatus, encodeRpcStatusJson, RETRY_INFO_TYPE_URL } from "./rpc-status.js";

// The messages as googleapis defines them, built independently of the hand-written encoder.
const root = protobuf.Root.fromJSON({
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
const Status = root.lookupType("Status");
const RetryInfo = root.lookupType("RetryInfo");

function decode(bytes: Uint8Array) {
  const status = Status.toObject(Status.decode(bytes), { longs: Number, defaults: true }) as {
    code: number;
    message: string;
    details: { type_url: string; value: Uint8Array }[];
  };
  const retry = status.details.map(
    (d) =>
      RetryInfo.toObject(RetryInfo.decode(d.value), { longs: Number, defaults: true }) as {
        retry_delay: { seconds: number; nanos: number };
      },
  );
  return { ...status, retry };
}

describe("google.rpc.Status encoding", () => {
  it("carries code, message and a RetryInfo with the delay split into seconds and nanos", () => {
    const status = decode(
      encodeRpcStatus({ code: 14, message: "PostgreSQL is down", retryAfterSeconds: 2.25 }),
    );
    expect(status.code).toBe(14);
    expect(status.message).toBe("PostgreSQL is down");
    expect(status.details.map((d) => d.type_url)).toEqual([RETRY_INFO_TYPE_URL]);
    expect(status.retry).toEqual([{ retry_delay: { seconds: 2, nanos: 250_000_000 } }]);
  });

  it("leaves the details out when there is no retry advice", () => {
    const status = decode(encodeRpcStatus({ code: 3, message: "truncated body" }));
    expect(status).toMatchObject({ code: 3, message: "truncated body", details: [] });
  });

  it("writes the proto3 JSON form with the delay as a duration string", () => {
    expect(
      JSON.parse(encodeRpcStatusJson({ code: 8, message: "slow down", retryAfterSeconds: 1.5 })),
    ).toEqual({
      code: 8,
      message: "slow down",
      details: [{ "@type": RETRY_INFO_TYPE_URL, retryDelay: "1.5s" }],
    });
    expect(JSON.parse(encodeRpcStatusJson({ code: 3, message: "bad" })).details).toEqual([]);
  });
});
