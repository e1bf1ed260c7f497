import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "../client.js";
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  HttpStatusError,
  NotFoundError,
  PermissionError,
  RateLimitedError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
} from "../errors.js";
import {
  drop,
  json,
  raw,
  type Step,
  stall,
  stallMidBody,
  startScriptedServer,
} from "../test-support/scripted-http-server.js";
import { Transport } from "./transport.js";

const prediction = {
  id: "p_1",
  createdAt: "2026-12-01T10:00:00Z",
  mode: "live",
  modelVersion: "m1",
  cluster: "hpc1",
  user: "alice",
  resources: [],
};
const spec = {
  cluster: "hpc1",
  scheduler: "slurm" as const,
  user: "alice",
  requested: { memoryBytes: 2 ** 30 },
};

let servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(steps: Step[], options: { retries?: number; timeoutMs?: number } = {}) {
  const server = await startScriptedServer(steps);
  servers.push(server);
  const client = createClient({
    baseUrl: server.baseUrl,
    token: "t0ken",
    retries: options.retries ?? 2,
    retryDelayMs: 5,
    maxRetryDelayMs: 20,
    timeoutMs: options.timeoutMs ?? 2000,
  });
  return { server, client };
}

describe("retries", () => {
  it("retries a read after 503 honouring Retry-After, then returns the answer", async () => {
    const { server, client } = await serve([
      json(503, { code: "UNAVAILABLE", message: "busy", statusCode: 503 }, { "retry-after": "1" }),
      json(200, prediction),
    ]);
    const started = Date.now();
    const result = await client.predictions.get("p_1");
    expect(result.id).toBe("p_1");
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1].at - server.seen[0].at).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server.seen[0].headers.authorization).toBe("Bearer t0ken");
  });

  it("retries 429 and 5xx with back-off up to the retry budget, then throws the typed error", async () => {
    const { server, client } = await serve([
      json(429, { code: "RATE", message: "slow down", statusCode: 429 }),
      raw(502, "<html>bad gateway</html>"),
    ]);
    const error = await client.predictions.get("p_1").catch((e) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error.code).toBe("SERVER_ERROR");
    expect(error.status).toBe(502);
    expect(error.rawBody).toBe("<html>bad gateway</html>");
    expect(server.seen).toHaveLength(3);
  });

  it("does not wait for a Retry-After beyond maxRetryAfterMs", async () => {
    const { server, client } = await serve([
      json(429, { code: "RATE", message: "later", statusCode: 429 }, { "retry-after": "120" }),
    ]);
    const error = await client.predictions.get("p_1").catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfterSeconds).toBe(120);
    expect(server.seen).toHaveLength(1);
  });

  it("takes retryAfterSeconds from the ApiError body when the header is missing", async () => {
    const { client } = await serve([
      json(429, { code: "RATE", message: "later", statusCode: 429, retryAfterSeconds: 300 }),
    ]);
    const error = await client.predictions.get("p_1").catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfterSeconds).toBe(300);
  });

  it("retries a POST that carries an idempotency key, resending the same key", async () => {
    const { server, client } = await serve([drop, json(200, prediction)]);
    const result = await client.predictions.create({ spec });
    expect(result.id).toBe("p_1");
    expect(server.seen).toHaveLength(1 + 1);
    const keys = server.seen.map((s) => s.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(JSON.parse(server.seen[0].body).idempotencyKey).toBe(keys[0]);
  });

  it("never retries a POST without an idempotency key", async () => {
    const { server } = await serve([json(503, { code: "X", message: "busy", statusCode: 503 })]);
    const transport = new Transport({
      baseUrl: server.baseUrl,
      timeoutMs: 1000,
      retries: 3,
      baseDelayMs: 1,
      maxDelayMs: 1,
      maxRetryAfterMs: 1000,
      fetch,
      validateResponses: true,
    });
    const error = await transport
      .request({ operationId: "registerCluster", body: { id: "c1", name: "C", scheduler: "slurm" } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(server.seen).toHaveLength(1);
  });

  it("does not retry client errors", async () => {
    const { server, client } = await serve([
      json(404, { code: "NOT_FOUND", message: "no prediction p_9", statusCode: 404 }),
    ]);
    const error = await client.predictions.get("p_9").catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.apiCode).toBe("NOT_FOUND");
    expect(error.message).toContain("no prediction p_9");
    expect(server.seen).toHaveLength(1);
  });
});

describe("typed errors", () => {
  it.each([
    [401, AuthenticationError, "AUTHENTICATION_FAILED"],
    [403, PermissionError, "PERMISSION_DENIED"],
    [404, NotFoundError, "NOT_FOUND"],
    [409, ConflictError, "CONFLICT"],
    [418, HttpStatusError, "HTTP_ERROR"],
  ])("maps HTTP %i to %o", async (status, type, code) => {
    const { client } = await serve([json(status, { code: "SOMETHING", message: "no", statusCode: status })]);
    const error = await client.jobs.get("42").catch((e) => e);
    expect(error).toBeInstanceOf(type);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
  });

  it("keeps every offending field of a 400", async () => {
    const errors = [
      { path: "/spec/user", message: "Expected string" },
      { path: "/spec/requested/cores", message: "Expected integer" },
    ];
    const { client } = await serve([
      json(400, { code: "VALIDATION_FAILED", message: "2 fields are invalid", statusCode: 400, errors }),
    ]);
    const error = await client.predictions.create({ spec }).catch((e) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.fields).toEqual(errors);
    expect(error.message).toContain("/spec/requested/cores: Expected integer");
  });

  it("throws ResponseValidationError with the raw body when a 200 is not JSON", async () => {
    const { client } = await serve([raw(200, '{"id": "p_1", "trunc', "application/json")]);
    const error = await client.predictions.get("p_1").catch((e) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.code).toBe("RESPONSE_INVALID");
    expect(error.rawBody).toBe('{"id": "p_1", "trunc');
    expect(error.fields).toEqual([]);
  });

  it("throws ResponseValidationError naming the fields when a 200 does not match the schema", async () => {
    const body = JSON.stringify({ ...prediction, mode: "sideways" });
    const { client } = await serve([raw(200, body, "application/json")]);
    const error = await client.predictions.get("p_1").catch((e) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.rawBody).toBe(body);
    expect(error.fields.map((f: { path: string }) => f.path)).toContain("/mode");
  });

  it("skips response validation when asked to", async () => {
    const server = await startScriptedServer([json(200, { ...prediction, extra: 1 })]);
    servers.push(server);
    const client = createClient({ baseUrl: server.baseUrl, validateResponses: false });
    expect(await client.predictions.get("p_1")).toMatchObject({ extra: 1 });
  });
});

describe("connections and time", () => {
  it("throws ConnectionError after the retries when nothing listens", async () => {
    const server = await startScriptedServer([json(200, {})]);
    await server.close();
    const client = createClient({ baseUrl: server.baseUrl, retries: 1, retryDelayMs: 1 });
    const error = await client.predictions.get("p_1").catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.code).toBe("CONNECTION_FAILED");
    expect(error.message).toContain("GET /v1/predictions/p_1");
  });

  it("retries a dropped connection on a read", async () => {
    const { server, client } = await serve([drop, drop, json(200, prediction)]);
    expect((await client.predictions.get("p_1")).id).toBe("p_1");
    expect(server.seen).toHaveLength(3);
  });

  it("times out a server that never answers", async () => {
    const { server, client } = await serve([stall], { retries: 1, timeoutMs: 150 });
    const error = await client.predictions.get("p_1").catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.code).toBe("TIMEOUT");
    expect(server.seen).toHaveLength(2);
  });

  it("times out a server that stalls in the middle of the body", async () => {
    const { client } = await serve([stallMidBody], { retries: 0, timeoutMs: 150 });
    const error = await client.health().catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it("stops at once, without retrying, when the caller aborts", async () => {
    const { server, client } = await serve([stall], { retries: 3, timeoutMs: 5000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user gave up")), 100);
    const error = await client.predictions.get("p_1", { signal: controller.signal }).catch((e) => e);
    expect(error.message).toBe("user gave up");
    expect(server.seen).toHaveLength(1);
  });

  it("encodes job ids with slashes and sends query parameters", async () => {
    const { server, client } = await serve([json(404, { code: "NOT_FOUND", message: "x", statusCode: 404 })]);
    await client.jobs.get("ml/train-7", { cluster: "k8s1" }).catch(() => undefined);
    expect(server.seen[0].url).toBe("/v1/jobs/ml%2Ftrain-7?cluster=k8s1");
  });

  it("asks a token function for the token on each call", async () => {
    const server = await startScriptedServer([json(200, { status: "ok", version: "1" })]);
    servers.push(server);
    let n = 0;
    const client = createClient({ baseUrl: `${server.baseUrl}/`, token: async () => `tok-${++n}` });
    await client.health();
    await client.health();
    expect(server.seen.map((s) => s.headers.authorization)).toEqual(["Bearer tok-1", "Bearer tok-2"]);
  });
});
