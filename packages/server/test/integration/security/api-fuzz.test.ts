import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiRoutes, buildOpenApiDocument, compileValidator, validateApiError } from "@jobsight/schemas";
import fc from "fast-check";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { LocalObjectStore } from "../../../src/data-plane/objects/local-object-store.js";
import { migrate } from "../../../src/data-plane/storage/migrator.js";
import { createDataPlaneStorage } from "../../../src/data-plane/storage/storage.js";
import { errorCatalogue } from "../../../src/errors.js";
import { SERVER_VERSION } from "../../../src/version.js";
import { hostileBodyArbitrary, hostileFragments, plant } from "./support/hostile-bodies.js";
import {
  arbitraryFor,
  brokenArbitraryFor,
  type JsonSchema,
  type SchemaContext,
} from "./support/json-schema-arbitrary.js";

// Property-based fuzzing of every operation of the OpenAPI document against the real app and a
// real PostgreSQL: schema-shaped and broken inputs, every role and bad credentials. No answer may
// be a 5xx (501 for operations this build does not serve excepted), every 4xx must be an ApiError
// naming its reason, 2xx answers must match the declared schema, and nothing may reject unhandled.
// Every operation also gets hostile bodies (lone surrogates, invalid UTF-8, 10,000-deep nesting,
// numbers far out of range, a body over the limit), in the property and again over a real socket,
// where no request may be answered by a reset and /healthz must answer after.

const MAX_PATH_PARAM = Number(process.env.JOBSIGHT_FUZZ_MAX_PATH_PARAM ?? 1000);
const RUNS_PER_OPERATION = Number(process.env.JOBSIGHT_FUZZ_RUNS ?? 40);
// CI replays a fixed seed so a red run is reproducible and a green one means the same inputs pass;
// `JOBSIGHT_FUZZ_SEED=random JOBSIGHT_FUZZ_RUNS=1000` explores (fast-check prints the seed it used).
const SEED_SETTING = process.env.JOBSIGHT_FUZZ_SEED ?? "20261202";
const SEED = SEED_SETTING === "random" ? {} : { seed: Number(SEED_SETTING) };
// Small limits keep the over-limit bodies cheap; the 10,000-deep bodies stay well under them.
const BODY_LIMIT = 256 * 1024;
const TOKENS: Record<string, string> = {
  researcher: "fuzz-researcher-token-0001",
  platform: "fuzz-platform-token-00000001",
  collector: "fuzz-collector-token-0000001",
  scheduler: "fuzz-scheduler-token-0000001",
  admin: "fuzz-admin-token-000000000001",
};

type Operation = {
  method: string;
  path: string;
  operationId: string;
  "x-jobsight-roles": string[];
  parameters?: { name: string; in: "path" | "query"; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
};

const doc = buildOpenApiDocument(SERVER_VERSION) as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
};
const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })),
);
const ctx: SchemaContext = {
  components: doc.components.schemas,
  favourites: { cluster: ["hpc1"], id: ["hpc1"], user: ["alice"], jobId: ["4242"] },
};
// Path parameters are never empty or dot segments: `/v1/jobs/`, `/v1/jobs/.` and `/v1/jobs/..`
// are other routes (the job list) once the URL is normalised.
const WEIRD = [
  "%",
  "%00",
  "\u0000",
  "a/b",
  "💥",
  "x".repeat(300),
  "' OR 1=1 --",
  "$" + "{jndi:x}",
  "__proto__",
];

/** Bodies shaped by the operation's JSON schema, or a small object for operations without one. */
function schemaShapedBody(op: Operation): fc.Arbitrary<unknown> {
  const json = op.requestBody?.content["application/json"]?.schema;
  return json ? arbitraryFor(json, ctx) : fc.constant({ a: "b" });
}

function requestArbitrary(op: Operation) {
  const params = op.parameters ?? [];
  const pathParams = Object.fromEntries(
    params
      .filter((p) => p.in === "path")
      .map((p) => [
        p.name,
        fc
          .oneof(arbitraryFor(p.schema, ctx, p.name), fc.constantFrom(...WEIRD), fc.string())
          .map(String)
          .filter((s) => s.length > 0 && s !== "." && s !== ".." && s.length <= MAX_PATH_PARAM),
      ]),
  );
  const query = Object.fromEntries(
    params
      .filter((p) => p.in === "query")
      .map((p) => [
        p.name,
        fc.option(fc.oneof(arbitraryFor(p.schema, ctx, p.name), fc.string({ maxLength: 12 })), {
          nil: undefined,
        }),
      ]),
  );
  const json = op.requestBody?.content["application/json"]?.schema;
  const raw = op.requestBody?.content["application/octet-stream"];
  const schemaShaped = schemaShapedBody(op);
  const hostile = { weight: 1, arbitrary: hostileBodyArbitrary(schemaShaped, BODY_LIMIT) };
  const body = json
    ? fc.oneof(
        {
          weight: 3,
          arbitrary: schemaShaped.map((v) => ({
            payload: JSON.stringify(v),
            type: "application/json",
          })),
        },
        {
          weight: 2,
          arbitrary: brokenArbitraryFor(json, ctx).map((v) => ({
            payload: JSON.stringify(v) ?? "null",
            type: "application/json",
          })),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            payload: fc.constantFrom("", "{", "[1,", "null", "\u0000"),
            type: fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded"),
          }),
        },
        hostile,
      )
    : raw
      ? fc.oneof(
          {
            weight: 3,
            arbitrary: fc.record({
              payload: fc.uint8Array({ maxLength: 4096 }).map((b): string | Buffer => Buffer.from(b)),
              type: fc.constantFrom("application/octet-stream", "text/x-shellscript", "application/json"),
            }),
          },
          hostile,
        )
      : fc.option(hostile.arbitrary, { nil: undefined, freq: 3 });
  return fc.record({
    token: fc.constantFrom<string | undefined>(
      ...Object.values(TOKENS),
      undefined,
      "garbage",
      `jst_${"A".repeat(43)}`,
      "eyJhbGciOiJub25lIn0.e30.",
    ),
    pathParams: fc.record(pathParams),
    query: fc.record(query, { requiredKeys: [] }),
    extraQuery: fc.option(
      fc.tuple(fc.constantFrom("unknown", "cluster", "limit"), fc.string({ maxLength: 8 })),
      { nil: undefined },
    ),
    body,
  });
}

function url(
  op: Operation,
  pathParams: Record<string, unknown>,
  query: Record<string, unknown>,
  extra?: [string, string],
): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(String(pathParams[name])),
  );
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) search.append(k, String(v));
  if (extra) search.append(extra[0], extra[1]);
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}

describe("fuzzing every operation of the OpenAPI document", () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let app: FastifyInstance;
  let objectsDir: string;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on("unhandledRejection", onUnhandled);
    db = await createTestDatabase("fuzz");
    pool = new pg.Pool({ connectionString: db.url, max: 6 });
    const { flavour } = await migrate(pool, { timescale: "off" });
    const storage = createDataPlaneStorage(pool, flavour, { retentionDays: 30, compressAfterDays: 7 });
    await storage.clusters.register({ id: "hpc1", name: "HPC 1", scheduler: "slurm" });
    objectsDir = await mkdtemp(join(tmpdir(), "jobsight-fuzz-"));
    const config = parseServerConfig({
      postgres: { url: db.url },
      rateLimit: { enabled: false },
      http: { bodyLimitBytes: BODY_LIMIT },
      ingest: { artifactMaxBytes: BODY_LIMIT },
      auth: {
        tokens: [
          { token: TOKENS.researcher, role: "researcher", user: "alice" },
          { token: TOKENS.platform, role: "platform", user: "pat" },
          { token: TOKENS.collector, role: "collector", user: "svc-collector", cluster: "hpc1" },
          { token: TOKENS.scheduler, role: "scheduler", user: "svc-scheduler", cluster: "hpc1" },
          { token: TOKENS.admin, role: "admin", user: "root" },
        ],
      },
    });
    app = await buildApp({
      config,
      storage,
      objectStore: new LocalObjectStore({ dir: objectsDir }),
      logger: false,
    });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await pool?.end();
    await db?.drop();
    if (objectsDir) await rm(objectsDir, { recursive: true, force: true });
    process.off("unhandledRejection", onUnhandled);
  });

  it("covers every route of the route table", () => {
    expect(operations.map((o) => o.operationId).sort()).toEqual(apiRoutes.map((r) => r.operationId).sort());
  });

  for (const op of operations) {
    it(`${op.method} ${op.path} (${op.operationId}) never answers 5xx and names every refusal`, async () => {
      const route = apiRoutes.find((r) => r.operationId === op.operationId)!;
      const validResponse = route.response ? compileValidator(route.response) : undefined;
      await fc.assert(
        fc.asyncProperty(requestArbitrary(op), async (req) => {
          const response = await app.inject({
            method: op.method as "GET",
            url: url(op, req.pathParams, req.query, req.extraQuery),
            headers: {
              ...(req.token ? { authorization: `Bearer ${req.token}` } : {}),
              ...(req.body ? { "content-type": req.body.type } : {}),
            },
            ...(req.body ? { payload: req.body.payload } : {}),
          });
          const where = `${op.method} ${response.statusCode} ${response.body.slice(0, 300)}`;
          if (response.statusCode === 501) {
            expect(response.json().code, where).toBe("NOT_IMPLEMENTED");
            return;
          }
          expect(response.statusCode, where).toBeLessThan(500);
          if (response.statusCode >= 400) {
            const body = response.json();
            expect(validateApiError(body).ok, where).toBe(true);
            expect(Object.keys(errorCatalogue), where).toContain(body.code);
            expect(body.statusCode, where).toBe(response.statusCode);
            expect(body.message.length, where).toBeGreaterThan(0);
            if (body.code === "VALIDATION_FAILED") expect(body.errors?.length, where).toBeGreaterThan(0);
          } else if (
            validResponse &&
            String(response.headers["content-type"]).startsWith("application/json")
          ) {
            const result = validResponse.validate(response.json());
            expect(result.ok ? [] : result.errors, where).toEqual([]);
          }
        }),
        { numRuns: RUNS_PER_OPERATION, ...SEED },
      );
    });
  }

  describe("over a real socket", () => {
    let port: number;

    beforeAll(async () => {
      await app.listen({ host: "127.0.0.1", port: 0 });
      port = (app.server.address() as AddressInfo).port;
    });

    type Answer = { status: number; body: string } | { reset: string };

    /** One request on its own connection; an error before any answer counts as a reset. */
    function send(method: string, path: string, headers: Record<string, string>, body?: Buffer) {
      return new Promise<Answer>((resolve) => {
        let settled = false;
        const settle = (answer: Answer) => {
          if (!settled) resolve(answer);
          settled = true;
        };
        const expect100 = headers.expect === "100-continue";
        const req = http.request({
          host: "127.0.0.1",
          port,
          method,
          path,
          agent: false,
          headers: body ? { ...headers, "content-length": String(body.length) } : headers,
        });
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            settle({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
          res.on("error", (error) => settle({ reset: String(error) }));
        });
        req.on("error", (error) => settle({ reset: String(error) }));
        if (expect100 && body) {
          req.on("continue", () => req.end(body));
          req.flushHeaders();
        } else req.end(body);
      });
    }

    const fragments = hostileFragments(BODY_LIMIT);
    for (const op of operations) {
      it(`${op.method} ${op.path} answers every hostile body without a reset or a 5xx, then /healthz`, async () => {
        const role = op["x-jobsight-roles"][0];
        await fc.assert(
          fc.asyncProperty(requestArbitrary(op), schemaShapedBody(op), fc.nat(), async (req, value, at) => {
            const path = url(op, req.pathParams, req.query);
            for (const fragment of fragments) {
              const oversized = fragment.name === "value over the body limit";
              for (const expect100 of oversized ? [false, true] : [false]) {
                const answer = await send(
                  op.method,
                  path,
                  {
                    ...(role ? { authorization: `Bearer ${TOKENS[role]}` } : {}),
                    "content-type": "application/json",
                    ...(expect100 ? { expect: "100-continue" } : {}),
                  },
                  plant(value, at, fragment),
                );
                const where = `${op.method} ${path.slice(0, 80)} with ${fragment.name}${expect100 ? " (Expect: 100-continue)" : ""}`;
                expect("reset" in answer ? answer.reset : undefined, where).toBeUndefined();
                if ("reset" in answer) return;
                const said = `${where} → ${answer.status} ${answer.body.slice(0, 300)}`;
                if (answer.status !== 501) expect(answer.status, said).toBeLessThan(500);
                if (oversized && op.requestBody) expect(answer.status, said).toBe(413);
              }
            }
          }),
          { numRuns: 2, ...SEED },
        );
        const health = await send("GET", "/healthz", {});
        expect(health).toMatchObject({ status: 200 });
      });
    }
  });

  // fastify answers these before any hook or error handler unless the app sets `frameworkErrors`
  // (and a `routerOptions.maxParamLength` above the schemas' 256-character ids).
  it("answers malformed escapes and over-long ids with an ApiError", async () => {
    const token = { authorization: `Bearer ${TOKENS.platform}` };
    for (const url of [
      "/v1/jobs/%zz",
      "/v1/jobs/%E0%A4%A",
      `/v1/jobs/${"x".repeat(256)}`,
      `/v1/jobs/${"x".repeat(5000)}/usage`,
    ]) {
      const response = await app.inject({ method: "GET", url, headers: token });
      const where = `${url.slice(0, 40)} → ${response.statusCode} ${response.body.slice(0, 120)}`;
      expect(response.statusCode, where).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, where).toBeLessThan(500);
      expect(validateApiError(response.json()).ok, where).toBe(true);
    }
  });

  it("left no promise rejected unhandled", () => {
    expect(unhandled).toEqual([]);
  });
});
