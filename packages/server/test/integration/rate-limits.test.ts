import { createServer } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/services/index.js";
import { migrate } from "../../src/data-plane/storage/migrator.js";
import { RateLimitStore } from "../../src/data-plane/stores/rate-limit-store.js";
import { errorHandlerPlugin } from "../../src/http/plugins/error-handler.js";
import { rateLimitPlugin } from "../../src/http/plugins/rate-limit.js";

// Replicas are stores (or apps) of their own on one database; syncs are called by the tests
// (syncIntervalMs: 0) so that what each replica knows is decided here, not by timers.
describe("rate limits shared by replicas through PostgreSQL", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function database(): Promise<{ db: TestDatabase; pool: pg.Pool }> {
    const db = await createTestDatabase("ratelimit");
    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    // Connections the database drop cuts off are reported here, not thrown.
    pool.on("error", () => {});
    cleanup.push(
      () => db.drop(),
      () => pool.end(),
    );
    await migrate(pool);
    return { db, pool };
  }

  function store(options: ConstructorParameters<typeof RateLimitStore>[0]): RateLimitStore {
    const s = new RateLimitStore({ syncIntervalMs: 0, ...options });
    cleanup.push(() => s.close());
    return s;
  }

  /** A replica's REST side: the error handler, the rate-limit plugin over `counts`, one limited route. */
  async function replica(counts: RateLimitStore, burst: number): Promise<FastifyInstance> {
    const app = Fastify({ logger: false });
    await app.register(errorHandlerPlugin);
    await app.register(rateLimitPlugin, { requestsPerSecond: 1, burst, store: counts });
    app.get("/v1/jobs", { onRequest: [app.rateLimit()] }, async () => ({ jobs: [] }));
    cleanup.push(() => app.close());
    return app;
  }

  const get = (app: FastifyInstance) =>
    app.inject({ url: "/v1/jobs", headers: { authorization: "Bearer researcher-token-0001" } });

  it("refuses once the replicas' combined count passes max, which neither reaches alone, and allows again a window later", async () => {
    const { pool } = await database();
    const clock = { now: 1_800_000_000_000 }; // the start of a window
    const a = store({ pool, now: () => clock.now });
    const b = store({ pool, now: () => clock.now });
    const max = 5;
    const window = 10_000; // burst 5 at 0.5 requests per second
    const key = "t:0f1e2d";
    for (let i = 0; i < 3; i++) {
      expect(a.take(key, max, window)).toBe(0);
      expect(b.take(key, max, window)).toBe(0);
    }
    // Alone, each has spent 3 of 5.
    const peek = (s: RateLimitStore) =>
      new Promise<number>((resolve) => s.read(key, (_e, r) => resolve(r!.current), window, max));
    expect([await peek(a), await peek(b)]).toEqual([3, 3]);

    clock.now += 300;
    expect(await a.sync()).toBe(true);
    expect(await b.sync()).toBe(true); // b stores its 3 and reads a's
    expect(await a.sync()).toBe(true); // a reads b's
    const { rows } = await pool.query("SELECT key, hits FROM rate_limit_counts");
    expect(rows).toEqual([{ key, hits: "6" }]);
    const waitA = a.take(key, max, window);
    const waitB = b.take(key, max, window);
    expect(waitA).toBeGreaterThan(0);
    expect(waitB).toBeGreaterThan(0);
    expect(waitA).toBeLessThanOrEqual(window / max / 1000); // one request's worth: 2 s
    // Other keys are untouched.
    expect(a.take("t:other", max, window)).toBe(0);

    clock.now += window;
    expect(await a.sync()).toBe(true);
    expect(await b.sync()).toBe(true);
    expect(a.take(key, max, window)).toBe(0);
    expect(b.take(key, max, window)).toBe(0);
    expect([a.stats.failures, b.stats.failures]).toEqual([0, 0]);
  });

  it("answers REST requests with 429 and Retry-After once two replicas together pass the burst", async () => {
    const { pool } = await database();
    const a = store({ pool });
    const b = store({ pool });
    const one = await replica(a, 4);
    const two = await replica(b, 4);
    // 3 each of a burst of 4: alone, neither is limited.
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await get(one)).statusCode, (await get(two)).statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 200, 200]);
    await a.sync();
    await b.sync();
    await a.sync();
    for (const app of [one, two]) {
      const limited = await get(app);
      expect(limited.statusCode).toBe(429);
      expect(limited.headers["retry-after"]).toBe("1");
      expect(limited.headers["x-ratelimit-limit"]).toBeUndefined();
      expect(limited.json()).toMatchObject({
        code: "RATE_LIMITED",
        statusCode: 429,
        retryAfterSeconds: expect.any(Number),
      });
    }
  });

  it("answers from local counts when PostgreSQL cannot be reached, never with 5xx", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const pool = new pg.Pool({ host: "127.0.0.1", port: closedPort, connectionTimeoutMillis: 2000 });
    cleanup.push(() => pool.end());
    const counts = store({ pool });
    const app = await replica(counts, 3);
    const codes = [];
    for (let i = 0; i < 4; i++) {
      codes.push((await get(app)).statusCode);
      expect(await counts.sync()).toBe(false);
    }
    expect(codes).toEqual([200, 200, 200, 429]);
    expect(counts.stats).toMatchObject({ syncs: 0, failures: 4 });
  });

  it("keeps limiting on what each replica knew when the database goes away", async () => {
    const { db, pool } = await database();
    const clock = { now: 1_800_000_000_000 };
    const a = store({ pool, now: () => clock.now });
    const b = store({ pool, now: () => clock.now });
    const key = "ip:192.0.2.7";
    for (let i = 0; i < 2; i++) b.take(key, 4, 8000);
    expect(await b.sync()).toBe(true);
    a.take(key, 4, 8000);
    expect(await a.sync()).toBe(true); // a knows of b's 2: 3 spent of 4
    await db.drop();
    expect(a.take(key, 4, 8000)).toBe(0);
    expect(a.take(key, 4, 8000)).toBeGreaterThan(0);
    expect(await a.sync()).toBe(false);
    expect(await a.sync()).toBe(false);
    expect(a.stats.failures).toBe(2);
    clock.now += 8000;
    expect(a.take(key, 4, 8000)).toBe(0);
  });
});
