import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { status as GrpcStatus } from "@grpc/grpc-js";
import {
  decodeExportMetricsResponse,
  decodeExportMetricsResponseJson,
  encodeExportMetricsRequest,
  encodeExportMetricsRequestJson,
  encodeObservations,
} from "@jobsight/otel-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IngestGate } from "../../../src/data-plane/ingest-gate.js";
import { decodeStatus, grpcRetryDelay, postOtlp, RawGrpcClient } from "./otlp-clients.js";
import { type OtlpFixture, richSamples, startOtlpFixture, TOKENS } from "./otlp-fixture.js";

const MAX_BYTES = 1024 * 1024;
const PROTOBUF = "application/x-protobuf";
const auth = (token: string = TOKENS.hpc1) => ({ authorization: `Bearer ${token}` });

let fx: OtlpFixture;
let grpc: RawGrpcClient;
const gate = new IngestGate(2);
const valid = () => encodeExportMetricsRequest(encodeObservations(richSamples("hpc1", "valid", 5)));

beforeAll(async () => {
  fx = await startOtlpFixture("otlp_bad_input", { maxMessageBytes: MAX_BYTES, ingestGate: gate });
  grpc = new RawGrpcClient(fx.receivers.grpc.url);
});
afterAll(async () => {
  grpc?.close();
  await fx?.close();
});

describe("OTLP receivers given bad input: clear errors, no crash, nothing written", () => {
  it("answers malformed and truncated protobuf with 400 / INVALID_ARGUMENT naming the problem", async () => {
    const body = valid();
    const cases: [Uint8Array, string][] = [
      [Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), "OTLP_"],
      [body.subarray(0, Math.floor(body.length / 2)), "OTLP_TRUNCATED"],
      [Uint8Array.from([0x00, 0x01, 0x02]), "OTLP_MALFORMED_PROTOBUF"],
    ];
    for (const [bytes, code] of cases) {
      const http = await postOtlp(fx.receivers.http.url, bytes, { ...auth(), "content-type": PROTOBUF });
      expect(http.status).toBe(400);
      expect(http.headers.get("content-type")).toBe(PROTOBUF);
      const status = decodeStatus(http.body);
      expect(status.code).toBe(GrpcStatus.INVALID_ARGUMENT);
      expect(status.message).toContain(code);
      expect(status.retryDelaySeconds).toBeUndefined();

      const { error } = await grpc.export(bytes, TOKENS.hpc1);
      expect(error?.code).toBe(GrpcStatus.INVALID_ARGUMENT);
      expect(error?.details).toContain(code);
    }
    expect(await fx.rowCount()).toBe(0);
  });

  it("refuses wrong content types (415), broken JSON and broken gzip (400), in the request's encoding", async () => {
    const body = valid();
    for (const type of ["text/plain", "application/octet-stream", ""]) {
      const res = await postOtlp(fx.receivers.http.url, body, {
        ...auth(),
        ...(type ? { "content-type": type } : {}),
      });
      expect(res.status).toBe(415);
      expect(JSON.parse(res.body.toString()).message).toContain("OTLP_UNSUPPORTED_CONTENT_TYPE");
    }
    const json = await postOtlp(fx.receivers.http.url, '{"resourceMetrics": [', {
      ...auth(),
      "content-type": "application/json",
    });
    expect(json.status).toBe(400);
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    expect(JSON.parse(json.body.toString())).toMatchObject({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: [],
    });
    expect(JSON.parse(json.body.toString()).message).toContain("OTLP_MALFORMED_JSON");

    const gz = gzipSync(body);
    const truncated = await postOtlp(fx.receivers.http.url, gz.subarray(0, gz.length - 12), {
      ...auth(),
      "content-type": PROTOBUF,
      "content-encoding": "gzip",
    });
    expect(truncated.status).toBe(400);
    expect(decodeStatus(truncated.body).message).toMatch(
      /MALFORMED_BODY: The gzip body is corrupt or truncated/,
    );
    const brotli = await postOtlp(fx.receivers.http.url, body, {
      ...auth(),
      "content-type": PROTOBUF,
      "content-encoding": "br",
    });
    expect(brotli.status).toBe(415);
    expect(await fx.rowCount()).toBe(0);
  });

  it("refuses bodies over the limit, also once decompressed (413 / RESOURCE_EXHAUSTED, no retry)", async () => {
    const big = new Uint8Array(MAX_BYTES + 1024);
    const tooBig = await postOtlp(fx.receivers.http.url, big, { ...auth(), "content-type": PROTOBUF });
    expect(tooBig.status).toBe(413);
    expect(decodeStatus(tooBig.body).message).toContain(`limit of ${MAX_BYTES} bytes`);
    const bomb = gzipSync(new Uint8Array(8 * MAX_BYTES));
    expect(bomb.length).toBeLessThan(MAX_BYTES);
    const inflated = await postOtlp(fx.receivers.http.url, bomb, {
      ...auth(),
      "content-type": PROTOBUF,
      "content-encoding": "gzip",
    });
    expect(inflated.status).toBe(413);
    expect(inflated.headers.get("retry-after")).toBeNull();

    const { error } = await grpc.export(big, TOKENS.hpc1);
    expect(error?.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(grpcRetryDelay(error)).toBeUndefined();
    expect(await fx.rowCount()).toBe(0);
  });

  it("answers a body over the limit announced with Expect: 100-continue with 413 before it is sent", async () => {
    // As curl and node:http clients do: the body goes out only after `100 Continue`.
    const send = (body: Uint8Array, headers: Record<string, string>) =>
      new Promise<{ status: number; continued: boolean; body: Buffer; error?: string }>((resolve) => {
        let continued = false;
        const req = httpRequest(fx.receivers.http.url, {
          method: "POST",
          headers: { ...headers, "content-length": String(body.length), expect: "100-continue" },
        });
        req.on("continue", () => {
          continued = true;
          req.end(body);
        });
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, continued, body: Buffer.concat(chunks) }),
          );
        });
        req.on("error", (error) =>
          resolve({ status: 0, continued, body: Buffer.alloc(0), error: String(error) }),
        );
        req.flushHeaders();
      });
    const big = await send(new Uint8Array(4 * MAX_BYTES), { ...auth(), "content-type": PROTOBUF });
    expect(big).toMatchObject({ status: 413, continued: false });
    expect(decodeStatus(big.body)).toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED });
    expect(decodeStatus(big.body).message).toContain(`limit of ${MAX_BYTES} bytes`);
    // Refused callers are answered without the body too; a body within the limit is asked for.
    const refused = await send(new Uint8Array(4 * MAX_BYTES), { "content-type": PROTOBUF });
    expect(refused).toMatchObject({ status: 401, continued: false });
    const fits = await send(valid(), { ...auth(), "content-type": PROTOBUF });
    expect(fits).toMatchObject({ status: 200, continued: true });
    expect(decodeExportMetricsResponse(fits.body).partialSuccess).toBeUndefined();
    await fx.storage.storage.pool.query("DELETE FROM usage_samples WHERE job_id = 'valid'");
  });

  it("rejects points with huge attribute values as partial success and ignores huge unrelated ones", async () => {
    const request = encodeObservations(richSamples("hpc1", "huge-ok", 2));
    request.resourceMetrics[0].resource!.attributes.push({
      key: "site.note",
      value: { stringValue: "x".repeat(300_000) },
    });
    // The encoder refuses such a job id, so it is put in afterwards, as a broken sender would.
    const hugeJob = encodeObservations(richSamples("hpc1", "huge-job", 1));
    let hugePoints = 0;
    for (const metric of hugeJob.resourceMetrics[0].scopeMetrics[0].metrics) {
      for (const point of (metric.gauge ?? metric.sum)!.dataPoints) {
        hugePoints++;
        for (const kv of point.attributes) {
          if (kv.key === "jobsight.job.id") kv.value = { stringValue: "y".repeat(10_000) };
        }
      }
    }
    request.resourceMetrics.push(...hugeJob.resourceMetrics);
    const res = await postOtlp(fx.receivers.http.url, encodeExportMetricsRequestJson(request), {
      ...auth(),
      "content-type": "application/json",
    });
    expect(res.status).toBe(200);
    const answer = decodeExportMetricsResponseJson(res.body);
    expect(answer.partialSuccess?.rejectedDataPoints).toBe(BigInt(hugePoints));
    expect(answer.partialSuccess?.errorMessage).toMatch(/invalid sample: \/jobId/);
    expect((await fx.storage.storage.samples.series("hpc1", "huge-ok")).samples).toHaveLength(2);
    expect(await fx.rowCount()).toBe(2);
  });

  it("rejects points whose identity holds an unpaired surrogate as partial success, not 500", async () => {
    const good = richSamples("hpc1", "surrogate-ok", 2);
    const bad = [
      ...richSamples("hpc1", "surrogate-\ud800", 1),
      ...richSamples("hpc1", "surrogate-node", 1, "gpu\udc07"),
      { ...richSamples("hpc1", "surrogate-user", 1)[0], user: "al\ud800ice" },
    ];
    const request = encodeObservations([...good, ...bad]);
    const badPoints = encodeObservations(bad).resourceMetrics.reduce(
      (n, rm) =>
        n +
        rm.scopeMetrics[0].metrics.reduce(
          (m, metric) => m + (metric.gauge ?? metric.sum)!.dataPoints.length,
          0,
        ),
      0,
    );
    const before = await fx.rowCount();
    // JSON.stringify writes each lone surrogate as its escape, as a broken sender would.
    const res = await postOtlp(fx.receivers.http.url, encodeExportMetricsRequestJson(request), {
      ...auth(),
      "content-type": "application/json",
    });
    expect(res.status).toBe(200);
    const answer = decodeExportMetricsResponseJson(res.body);
    expect(answer.partialSuccess?.rejectedDataPoints).toBe(BigInt(badPoints));
    expect(answer.partialSuccess?.errorMessage).toMatch(/unpaired UTF-16 surrogate/);
    expect((await fx.storage.storage.samples.series("hpc1", "surrogate-ok")).samples).toHaveLength(2);
    expect(await fx.rowCount()).toBe(before + 2);
    // The later tests count the rows of the others.
    await fx.storage.storage.pool.query("DELETE FROM usage_samples WHERE job_id = 'surrogate-ok'");
  });

  it("refuses callers without a valid collector token of a registered cluster (401, 403)", async () => {
    const body = valid();
    const cases: [Record<string, string>, number, GrpcStatus, string | undefined, RegExp][] = [
      [{}, 401, GrpcStatus.UNAUTHENTICATED, undefined, /bearer token/],
      [
        auth("not-a-token-of-this-server"),
        401,
        GrpcStatus.UNAUTHENTICATED,
        "not-a-token-of-this-server",
        /not valid/,
      ],
      [auth(TOKENS.platform), 403, GrpcStatus.PERMISSION_DENIED, TOKENS.platform, /collector token/],
      [
        auth(TOKENS.unregistered),
        403,
        GrpcStatus.FAILED_PRECONDITION,
        TOKENS.unregistered,
        /hpc9 is not registered/,
      ],
    ];
    for (const [headers, httpStatus, grpcCode, token, message] of cases) {
      const res = await postOtlp(fx.receivers.http.url, body, { ...headers, "content-type": PROTOBUF });
      expect(res.status).toBe(httpStatus);
      expect(decodeStatus(res.body).message).toMatch(message);
      const { error } = await grpc.export(body, token);
      expect(error?.code).toBe(grpcCode);
      expect(error?.details).toMatch(message);
    }
    expect(await fx.rowCount()).toBe(2);
  });

  it("pushes back with 429 / RESOURCE_EXHAUSTED and a retry delay when ingest is saturated", async () => {
    const releases: (() => void)[] = [];
    const held = [0, 1].map(() => gate.run(() => new Promise<void>((resolve) => releases.push(resolve))));
    try {
      const res = await postOtlp(fx.receivers.http.url, valid(), { ...auth(), "content-type": PROTOBUF });
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(decodeStatus(res.body)).toMatchObject({
        code: GrpcStatus.RESOURCE_EXHAUSTED,
        retryDelaySeconds: 1,
      });
      const { error } = await grpc.export(valid(), TOKENS.hpc1);
      expect(error?.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
      expect(grpcRetryDelay(error)).toBe(1);
    } finally {
      for (const release of releases) release();
      await Promise.all(held);
    }
  });

  it("still serves valid exports on both transports after all of that", async () => {
    const http = await postOtlp(fx.receivers.http.url, valid(), { ...auth(), "content-type": PROTOBUF });
    expect(http.status).toBe(200);
    expect(decodeExportMetricsResponse(http.body)).toEqual({});
    const { error, response } = await grpc.export(valid(), TOKENS.hpc1);
    expect(error).toBeUndefined();
    expect(decodeExportMetricsResponse(response!)).toEqual({});
    expect((await fx.storage.storage.samples.series("hpc1", "valid")).samples).toHaveLength(5);
  });
});
