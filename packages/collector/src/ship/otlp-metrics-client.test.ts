import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import {
  createExportMetricsResponse,
  createMetricsServiceImplementation,
  encodeObservations,
  metricsServiceDefinition,
} from "@jobsight/otel-bridge";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SinkError } from "../errors.js";
import { testPki } from "../test-support/test-pki.js";
import { OtlpMetricsClient } from "./otlp-metrics-client.js";

/** A throwaway CA and a server certificate for 127.0.0.1 it signed, made with openssl. */
async function certificates(dir: string) {
  const pki = testPki(dir);
  await pki.ca("ca", "/CN=Test CA");
  const { cert, key } = await pki.issue("server", "ca", "/CN=s", "IP:127.0.0.1");
  return { caFile: pki.file("ca.crt"), cert, key };
}

async function startReceiver(credentials: grpc.ServerCredentials, delayMs = 0) {
  const server = new grpc.Server();
  const received: string[] = [];
  server.addService(
    metricsServiceDefinition,
    createMetricsServiceImplementation({
      onExport: async (_request, context) => {
        received.push(String(context.metadata.get("authorization")[0]));
        await new Promise((r) => setTimeout(r, delayMs));
        return createExportMetricsResponse(0);
      },
    }),
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", credentials, (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { server, port, received };
}

const request = encodeObservations([
  { cluster: "hpc1", jobId: "1", node: "n1", time: "2026-12-01T10:00:00Z", memory: { currentBytes: 1 } },
]);
const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe("OtlpMetricsClient", () => {
  let dir: string;
  let tls: Awaited<ReturnType<typeof certificates>>;
  const cleanups: (() => void)[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-otlp-client-"));
    tls = await certificates(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("exports over TLS with the CA the OpenTelemetry exporter's environment names, and the token", async () => {
    const receiver = await startReceiver(
      grpc.ServerCredentials.createSsl(null, [{ cert_chain: tls.cert, private_key: tls.key }]),
    );
    cleanups.push(() => receiver.server.forceShutdown());
    const url = `https://127.0.0.1:${receiver.port}`;

    const client = new OtlpMetricsClient({
      url,
      token: "tok",
      env: { OTEL_EXPORTER_OTLP_CERTIFICATE: tls.caFile },
    });
    cleanups.push(() => client.close());
    const answer = await client.export(request, new AbortController().signal);
    expect(answer).toEqual({ response: {}, rejectedSamples: undefined });
    expect(receiver.received).toEqual(["Bearer tok"]);

    // Without the CA the server is not trusted: a retryable failure, nothing sent.
    const untrusting = new OtlpMetricsClient({ url, env: {}, timeoutMs: 3_000 });
    cleanups.push(() => untrusting.close());
    const error = await failureOf(untrusting.export(request, new AbortController().signal));
    expect(error).toBeInstanceOf(SinkError);
    expect((error as SinkError).retryable).toBe(true);
    expect(receiver.received).toHaveLength(1);
  });

  it("gives up on an export past its time limit or when aborted, as a retryable failure", async () => {
    const receiver = await startReceiver(grpc.ServerCredentials.createInsecure(), 2_000);
    cleanups.push(() => receiver.server.forceShutdown());
    const url = `http://127.0.0.1:${receiver.port}`;

    const slow = new OtlpMetricsClient({ url, timeoutMs: 200, env: {} });
    cleanups.push(() => slow.close());
    const late = await failureOf(slow.export(request, new AbortController().signal));
    expect(late).toBeInstanceOf(SinkError);
    expect((late as SinkError).retryable).toBe(true);

    const client = new OtlpMetricsClient({ url, env: {} });
    cleanups.push(() => client.close());
    const abort = new AbortController();
    const started = Date.now();
    const pending = failureOf(client.export(request, abort.signal));
    setTimeout(() => abort.abort(), 100);
    const aborted = await pending;
    expect(aborted).toBeInstanceOf(SinkError);
    expect((aborted as SinkError).retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});
