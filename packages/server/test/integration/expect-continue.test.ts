import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { parseServerConfig } from "../../src/config/parse-config.js";
import { jobRecord, openTestStorage, type StorageFixture } from "./storage-fixture.js";
import { PRINCIPALS } from "./test-server-config.js";

// A body announced with `Expect: 100-continue` and a Content-Length over the limit must be
// answered 413 before the client sends it, over a real socket (inject() has no 100-continue).

const JSON_LIMIT = 64 * 1024;
const ARTIFACT_LIMIT = 256 * 1024;
const token = PRINCIPALS.collector.token;

type Answer = { status: number; continued: boolean; body: string; error?: string };

describe("Expect: 100-continue", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let objects: string;
  let port: number;

  beforeAll(async () => {
    fx = await openTestStorage("expect_continue");
    objects = await mkdtemp(join(tmpdir(), "jobsight-continue-"));
    const config = parseServerConfig({
      objectStore: { dir: objects },
      rateLimit: { enabled: false },
      http: { logLevel: "silent", bodyLimitBytes: JSON_LIMIT },
      ingest: { artifactMaxBytes: ARTIFACT_LIMIT },
      auth: { tokens: [PRINCIPALS.collector] },
    });
    app = await buildApp({ config, storage: fx.storage });
    await app.listen({ host: "127.0.0.1", port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
    if (objects) await rm(objects, { recursive: true, force: true });
  });

  /** Sends the body only after `100 Continue`, as curl and node:http clients do. */
  function send(
    method: string,
    path: string,
    body: Buffer,
    headers: Record<string, string>,
  ): Promise<Answer> {
    return new Promise((resolve) => {
      let continued = false;
      const req = http.request({
        host: "127.0.0.1",
        port,
        method,
        path,
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
          resolve({ status: res.statusCode ?? 0, continued, body: Buffer.concat(chunks).toString() }),
        );
      });
      req.on("error", (error) => resolve({ status: 0, continued, body: "", error: String(error) }));
      req.flushHeaders();
    });
  }

  const auth = (type: string, bearer = token) => ({
    authorization: `Bearer ${bearer}`,
    "content-type": type,
  });

  it("answers 413 with an ApiError, without 100 Continue, to a JSON body over the limit", async () => {
    const answer = await send(
      "POST",
      "/v1/jobs",
      Buffer.alloc(8 * 1024 * 1024, 0x20),
      auth("application/json"),
    );
    expect(answer).toMatchObject({ status: 413, continued: false });
    expect(JSON.parse(answer.body)).toEqual({
      code: "PAYLOAD_TOO_LARGE",
      statusCode: 413,
      message: `The body exceeds the limit of ${JSON_LIMIT} bytes`,
    });
  });

  it("uses the route's own limit: an artifact over the JSON limit continues, one over its limit is refused", async () => {
    const url = "/v1/artifacts?kind=log&cluster=hpc1";
    const fits = await send("PUT", url, Buffer.alloc(2 * JSON_LIMIT, 0x61), auth("text/plain"));
    expect(fits).toMatchObject({ status: 201, continued: true });
    const over = await send("PUT", url, Buffer.alloc(ARTIFACT_LIMIT + 1, 0x61), auth("text/plain"));
    expect(over).toMatchObject({ status: 413, continued: false });
    expect(JSON.parse(over.body).message).toContain(`limit of ${ARTIFACT_LIMIT} bytes`);
  });

  it("continues a body within the limit; refuses a bad token, and an unknown route's oversized body, without it", async () => {
    const payload = Buffer.from(JSON.stringify({ records: [jobRecord("hpc1", "c-1", "alice", 1)] }));
    const ok = await send("POST", "/v1/jobs", payload, auth("application/json"));
    expect(ok).toMatchObject({ status: 200, continued: true });
    expect(JSON.parse(ok.body)).toEqual({ accepted: 1, duplicates: 0 });
    const refused = await send("POST", "/v1/jobs", payload, auth("application/json", "not-a-token"));
    expect(refused).toMatchObject({ status: 401, continued: false });
    const unknown = await send("POST", "/v1/nowhere", Buffer.alloc(JSON_LIMIT + 1), auth("application/json"));
    expect(unknown).toMatchObject({ status: 413, continued: false });
  });
});
