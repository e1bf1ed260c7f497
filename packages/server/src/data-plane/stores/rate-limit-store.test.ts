import { afterEach, describe, expect, it, vi } from "vitest";
import type { SqlPool } from "../storage/database.js";
import { RateLimitStore, type RateLimitStoreResult } from "./rate-limit-store.js";

type Row = { key: string; window_start: Date; hits: string };

/** A pool whose every query `answer` makes (a row list, or a thrown error). */
function fakePool(answer: (text: string, params: unknown[]) => Promise<Row[]> | Row[]) {
  const calls: { text: string; params: unknown[] }[] = [];
  const pool = {
    query: vi.fn(async (text: string, params: unknown[]) => {
      calls.push({ text, params });
      return { rows: await answer(text, params), rowCount: 0 };
    }),
  };
  return { pool: pool as unknown as SqlPool, calls };
}

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });

function incr(store: RateLimitStore, key: string, windowMs: number, max: number): RateLimitStoreResult {
  let result: RateLimitStoreResult | undefined;
  store.incr(
    key,
    (error, r) => {
      expect(error).toBeNull();
      result = r;
    },
    windowMs,
    max,
  );
  return result!;
}

describe("RateLimitStore", () => {
  const stores: RateLimitStore[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const s of stores.splice(0)) await s.close();
  });
  const make = (...args: ConstructorParameters<typeof RateLimitStore>) => {
    const store = new RateLimitStore(...args);
    stores.push(store);
    return store;
  };

  it("answers @fastify/rate-limit with current above max and the ms until a request is allowed", () => {
    let now = 0;
    const store = make({ now: () => now });
    // max 2 per 2000 ms: refilled at one request per second.
    expect(incr(store, "t:a", 2000, 2)).toEqual({ current: 1, ttl: 1000 });
    expect(incr(store, "t:a", 2000, 2)).toEqual({ current: 2, ttl: 2000 });
    expect(incr(store, "t:a", 2000, 2)).toEqual({ current: 3, ttl: 1000 });
    now = 250;
    expect(incr(store, "t:a", 2000, 2)).toEqual({ current: 3, ttl: 750 });
    let read: RateLimitStoreResult | undefined;
    store.read(
      "t:a",
      (_e, r) => {
        read = r;
      },
      2000,
      2,
    );
    expect(read).toEqual({ current: 3, ttl: 750 });
    now = 1000;
    expect(incr(store, "t:a", 2000, 2).current).toBe(2);
  });

  it("is the one instance behind the plugin's store class and every route's child", () => {
    const store = make();
    const Store = store.asPluginStore();
    expect(new Store({ max: 1 })).toBe(store);
    expect(store.child({ max: 5 })).toBe(store);
  });

  it("gives OTLP the seconds to wait, counted in the same budgets", () => {
    let now = 0;
    const store = make({ now: () => now });
    expect([store.take("otlp:t:a", 2, 1000), store.take("otlp:t:a", 2, 1000)]).toEqual([0, 0]);
    expect(store.take("otlp:t:a", 2, 1000)).toBeCloseTo(0.5);
    expect(incr(store, "t:a", 1000, 2).current).toBe(1);
    now = 500;
    expect(store.take("otlp:t:a", 2, 1000)).toBe(0);
  });

  it("stores each hit once, and a sync that failed sends its hits with the next", async () => {
    let fail = true;
    const { pool, calls } = fakePool((_text, params) => {
      if (fail) throw refused();
      const [keys, starts, , hits] = params as [string[], string[], string[], number[]];
      return keys.map((key, i) => ({ key, window_start: new Date(starts[i]), hits: String(hits[i]) }));
    });
    const log = { warn: vi.fn(), info: vi.fn() };
    const store = make({ pool, syncIntervalMs: 0, now: () => 1_000, log });
    incr(store, "t:a", 4000, 10);
    incr(store, "t:a", 4000, 10);
    expect(await store.sync()).toBe(false);
    expect(await store.sync()).toBe(false);
    expect(store.stats).toMatchObject({ syncs: 0, failures: 2 });
    expect(log.warn).toHaveBeenCalledTimes(1);
    fail = false;
    expect(await store.sync()).toBe(true);
    expect(log.info).toHaveBeenCalledWith({ failedSyncs: 2 }, expect.any(String));
    expect(calls[2].params.slice(0, 4)).toEqual([
      ["t:a"],
      ["1970-01-01T00:00:00.000Z"],
      ["1970-01-01T00:00:08.000Z"],
      [2],
    ]);
    expect(calls[2].params[4]).toEqual(["t:a"]);
    await store.sync();
    expect(calls[3].params.slice(0, 4)).toEqual([[], [], [], []]);
    expect(store.stats).toMatchObject({ syncs: 2, failures: 2, keys: 1 });
  });

  it("keeps limiting on local counts while PostgreSQL is unreachable, and never throws", async () => {
    const { pool } = fakePool(() => {
      throw refused();
    });
    const store = make({ pool, syncIntervalMs: 0 });
    const codes = [];
    for (let i = 0; i < 4; i++) {
      codes.push(incr(store, "ip:10.0.0.1", 60_000, 3).current);
      await store.sync();
    }
    expect(codes).toEqual([1, 2, 3, 4]);
    expect(store.stats.failures).toBe(4);
  });

  it("syncs in the background from the first request, skipping a tick while one runs", async () => {
    vi.useFakeTimers();
    let hold = true;
    let release: () => void = () => {};
    const { pool, calls } = fakePool(() =>
      hold
        ? new Promise<Row[]>((resolve) => {
            release = () => resolve([]);
          })
        : [],
    );
    const store = make({ pool, syncIntervalMs: 100 });
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toHaveLength(0); // no request yet, no timer
    store.take("t:a", 5, 1000);
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(300);
    expect(calls).toHaveLength(1);
    expect(store.stats.skipped).toBe(3);
    release();
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toHaveLength(2);
    hold = false;
    release();
    await store.close();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(3); // the last sync of close(), then none
  });

  it("deletes the rows of windows past now and then", async () => {
    let now = 0;
    const { pool, calls } = fakePool(() => []);
    const store = make({ pool, syncIntervalMs: 0, cleanupIntervalMs: 60_000, now: () => now });
    store.take("t:a", 5, 1000);
    await store.sync();
    now = 60_000;
    store.take("t:a", 5, 1000);
    await store.sync();
    const deletes = calls.filter((c) => c.text.startsWith("DELETE"));
    expect(deletes).toEqual([{ text: expect.any(String), params: ["1970-01-01T00:01:00.000Z"] }]);
  });
});
