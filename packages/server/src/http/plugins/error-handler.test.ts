import { createHash } from "node:crypto";
import { type JobRecord, validators } from "@jobsight/schemas";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { StorageUnavailableError } from "../../errors.js";
import { ApiTokenVerifier } from "../../platform/identity/api-token-verifier.js";
import { toJobsightError } from "../../to-jobsight-error.js";
import { registerApiRoutes } from "../routes/register-api-routes.js";
import { authPlugin } from "./auth.js";
import { errorHandlerPlugin } from "./error-handler.js";
import { rateLimitPlugin } from "./rate-limit.js";

const TOKEN = "collector-token-for-tests-0001";
const sha = (t: string) => createHash("sha256").update(t).digest("hex");

const record: JobRecord = {
  cluster: "hpc1",
  jobId: "42",
  phase: "ended",
  source: "slurm-controller",
  spec: { cluster: "hpc1", scheduler: "slurm", user: "alice", requested: { memoryBytes: 1024 } },
  submittedAt: "2026-12-01T10:00:00Z",
};

// The real error handler, rate limit, auth and route registry, with handlers that only echo: what
// is under test is everything that happens before and after a handler.
async function app(options: { burst?: number; failWith?: Error } = {}): Promise<FastifyInstance> {
  const a = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  await a.register(errorHandlerPlugin, { bodyLimitBytes: 64 * 1024 });
  await a.register(rateLimitPlugin, { requestsPerSecond: 1, burst: options.burst ?? 100 });
  const verifier = new ApiTokenVerifier({
    tokens: [{ id: "c1", tokenSha256: sha(TOKEN), role: "collector", user: "svc", cluster: "hpc1" }],
  });
  await a.register(authPlugin, { verifiers: [verifier] });
  registerApiRoutes(
    a,
    {
      getHealth: async () => ({ status: "ok", version: "test" }),
      ingestJobRecords: async ({ body }) => {
        if (options.failWith) throw options.failWith;
        return { accepted: body.records.length, duplicates: 0 };
      },
    },
    { rawBodyLimitBytes: 1024 },
  );
  return a;
}

const auth = { authorization: `Bearer ${TOKEN}` };
let current: FastifyInstance | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

describe("error answers", () => {
  it("names every offending field of a body, each as a JSON pointer", async () => {
    current = await app();
    const bad = {
      ...record,
      phase: "done",
      spec: { ...record.spec, user: 7, requested: { memoryBytes: -1 } },
    };
    const res = await current.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: auth,
      // No valid record: a batch with some is stored but for them (see ingest-partial-batches).
      payload: { records: [bad, { ...bad, jobId: "" }] },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(validators.ApiError.check(body)).toBe(true);
    expect(body.code).toBe("VALIDATION_FAILED");
    expect(body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      "/records/0/phase",
      "/records/0/spec/requested/memoryBytes",
      "/records/0/spec/user",
      "/records/1/jobId",
      "/records/1/phase",
      "/records/1/spec/requested/memoryBytes",
      "/records/1/spec/user",
    ]);
  });

  it("refuses U+0000 in path, query and body with the field named, before any handler", async () => {
    current = await app({ failWith: new Error("the handler must not run") });
    const res = await current.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: auth,
      payload: { records: [{ ...record, jobId: "4\u00002" }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual(["/records/0/jobId"]);
  });

  it("names offending query parameters, unknown ones included", async () => {
    current = await app();
    const res = await current.inject({ method: "GET", url: "/healthz?verbose=1" });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ path: "/query/verbose", message: "Unknown query parameter" }]);
  });

  it("answers 401 with WWW-Authenticate without a token, and for an unknown token", async () => {
    current = await app();
    const none = await current.inject({ method: "POST", url: "/v1/jobs", payload: { records: [record] } });
    expect(none.statusCode).toBe(401);
    expect(none.headers["www-authenticate"]).toContain("Bearer");
    const wrong = await current.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: { authorization: "Bearer not-a-token" },
      payload: { records: [record] },
    });
    expect(wrong.json()).toMatchObject({ code: "UNAUTHENTICATED", statusCode: 401 });
  });

  it("answers 403 for a role the route does not allow", async () => {
    current = await app();
    const res = await current.inject({ method: "GET", url: "/v1/jobs", headers: auth });
    expect(res.json()).toMatchObject({ code: "FORBIDDEN", statusCode: 403 });
  });

  it("answers 501 NOT_IMPLEMENTED for table routes without a handler, after auth", async () => {
    current = await app();
    const anon = await current.inject({ method: "GET", url: "/v1/policy" });
    expect(anon.statusCode).toBe(401);
    const res = await current.inject({
      method: "POST",
      url: "/v1/usage",
      headers: auth,
      payload: { idempotencyKey: "k-123456", samples: [] },
    });
    expect(res.json()).toMatchObject({ code: "NOT_IMPLEMENTED", statusCode: 501 });
  });

  it("answers 415 for a non-JSON body, 400 for broken JSON, 413 over the limit", async () => {
    current = await app();
    const text = await current.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: { ...auth, "content-type": "text/plain" },
      payload: "records",
    });
    expect(text.json()).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", statusCode: 415 });
    const broken = await current.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: { ...auth, "content-type": "application/json" },
      payload: '{"records": [',
    });
    expect(broken.json()).toMatchObject({ code: "MALFORMED_BODY", statusCode: 400 });
    const huge = await current.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: auth,
      payload: { records: [{ ...record, spec: { ...record.spec, jobName: "x".repeat(70_000) } }] },
    });
    expect(huge.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE", statusCode: 413 });
  });

  it("answers 429 with Retry-After once a token's burst is spent", async () => {
    current = await app({ burst: 2 });
    const send = () =>
      current!.inject({ method: "POST", url: "/v1/jobs", headers: auth, payload: { records: [record] } });
    expect((await send()).statusCode).toBe(200);
    expect((await send()).statusCode).toBe(200);
    const limited = await send();
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(limited.json()).toMatchObject({ code: "RATE_LIMITED", retryAfterSeconds: expect.any(Number) });
  });

  it("answers 503 with Retry-After when storage is down, 500 without details otherwise", async () => {
    current = await app({ failWith: new StorageUnavailableError("PostgreSQL is unavailable") });
    const down = await current.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: auth,
      payload: { records: [record] },
    });
    expect(down.statusCode).toBe(503);
    expect(down.headers["retry-after"]).toBe("2");
    await current.close();
    current = await app({ failWith: new Error("password=hunter2") });
    const boom = await current.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: auth,
      payload: { records: [record] },
    });
    expect(boom.json()).toEqual({
      code: "INTERNAL_ERROR",
      message: "Internal server error",
      statusCode: 500,
    });
  });

  it("answers unknown routes with NOT_FOUND in the ApiError shape", async () => {
    current = await app();
    const res = await current.inject({ method: "GET", url: "/v2/nothing" });
    expect(res.json()).toMatchObject({ code: "NOT_FOUND", statusCode: 404 });
  });
});

describe("toJobsightError", () => {
  it("maps text PostgreSQL cannot store to a 400, not a 500", () => {
    const error = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: "22021",
    });
    expect(toJobsightError(error).toApiError()).toMatchObject({ code: "MALFORMED_BODY", statusCode: 400 });
  });

  it("maps lost PostgreSQL connections to a retryable 503", () => {
    const error = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    expect(toJobsightError(error).toApiError()).toMatchObject({
      code: "STORAGE_UNAVAILABLE",
      statusCode: 503,
    });
    const shutdown = Object.assign(new Error("terminating connection due to administrator command"), {
      code: "57P01",
    });
    expect(toJobsightError(shutdown).code).toBe("STORAGE_UNAVAILABLE");
  });

  it("does not treat a constraint violation as unavailability", () => {
    const error = Object.assign(new Error("duplicate key"), { code: "23505" });
    expect(toJobsightError(error).code).toBe("INTERNAL_ERROR");
  });
});
