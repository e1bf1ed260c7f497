import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import {
  createExportMetricsResponse,
  createMetricsServiceImplementation,
  decodeObservations,
  metricsServiceDefinition,
} from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas/light";
import { afterEach, describe, expect, it } from "vitest";
import { SinkError } from "../errors.js";
import { OtlpSink } from "./otlp-sink.js";

type Received = { samples: UsageSample[]; authorization: unknown };

async function startReceiver(
  fail?: grpc.status,
): Promise<{ server: grpc.Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = new grpc.Server();
  server.addService(
    metricsServiceDefinition,
    createMetricsServiceImplementation({
      onExport: (request, context) => {
        if (fail !== undefined) throw new Error("refused");
        const { samples } = decodeObservations(request);
        received.push({ samples, authorization: context.metadata.get("authorization")[0] });
        return createExportMetricsResponse(0, "");
      },
      onError: () => ({ code: fail ?? grpc.status.UNAVAILABLE, details: "refused" }),
    }),
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  return { server, url: `http://127.0.0.1:${port}`, received };
}

async function startRest(): Promise<{
  server: HttpServer;
  url: string;
  posts: { path: string; auth: string; body: unknown }[];
}> {
  const posts: { path: string; auth: string; body: unknown }[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      posts.push({ path: req.url ?? "", auth: String(req.headers.authorization), body: JSON.parse(text) });
      res.writeHead(202, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, posts };
}

const sample: UsageSample = {
  cluster: "hpc1",
  jobId: "4242",
  node: "gpu-a01",
  time: "2026-12-01T10:00:00Z",
  memory: { currentBytes: 2_147_483_648, limitBytes: 8_589_934_592, oomKillEvents: 1 },
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe("OtlpSink", () => {
  it("exports usage over OTLP/gRPC with the bearer token, and events over REST", async () => {
    const receiver = await startReceiver();
    const rest = await startRest();
    cleanups.push(
      () => void receiver.server.forceShutdown(),
      () => void rest.server.close(),
    );
    const sink = new OtlpSink({ otlpUrl: receiver.url, restUrl: rest.url, token: "tok-0123456789abcdef" });
    cleanups.push(() => sink.close());

    await sink.send({ kind: "usage", idempotencyKey: "k1", samples: [sample] }, new AbortController().signal);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].authorization).toBe("Bearer tok-0123456789abcdef");
    expect(receiver.received[0].samples[0]).toMatchObject({
      jobId: "4242",
      node: "gpu-a01",
      memory: { currentBytes: 2_147_483_648, limitBytes: 8_589_934_592 },
    });
    expect(rest.posts).toHaveLength(0);

    const event = {
      cluster: "hpc1",
      node: "gpu-a01",
      time: "2026-12-01T10:00:01Z",
      kind: "oom_kill" as const,
      jobId: "4242",
      message: "Memory cgroup out of memory: Killed process 41234 (python)",
    };
    await sink.send({ kind: "event", idempotencyKey: "k2", events: [event] }, new AbortController().signal);
    expect(rest.posts).toEqual([
      { path: "/v1/events", auth: "Bearer tok-0123456789abcdef", body: { events: [event] } },
    ]);
  });

  it.each([
    [grpc.status.PERMISSION_DENIED, true],
    [grpc.status.UNAVAILABLE, true],
    [grpc.status.INVALID_ARGUMENT, false],
  ])(
    "throws a SinkError when the receiver refuses the export with status %i, retryable=%s",
    async (status, retryable) => {
      const receiver = await startReceiver(status);
      cleanups.push(() => void receiver.server.forceShutdown());
      const sink = new OtlpSink({ otlpUrl: receiver.url, restUrl: "http://127.0.0.1:9", timeoutMs: 5_000 });
      cleanups.push(() => sink.close());
      const error = await sink
        .send({ kind: "usage", idempotencyKey: "k3", samples: [sample] }, new AbortController().signal)
        .then(
          () => undefined,
          (e) => e,
        );
      expect(error).toBeInstanceOf(SinkError);
      expect((error as SinkError).retryable).toBe(retryable);
    },
  );
});
