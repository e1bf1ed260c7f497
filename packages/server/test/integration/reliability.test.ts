import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UsageBatch, UsageSample } from "@jobsight/schemas";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/services/index.js";
import { type ServerProcess, startServerProcess, stopProcess } from "./server-process.js";

const TOKEN = "collector-reliability-token-01";
const BATCHES = 12;
const PER_BATCH = 6000;

// Batch i holds the samples of job rel-i only, so a half-written batch would show as a job with
// some but not all of its samples.
function batch(i: number): UsageBatch {
  const samples: UsageSample[] = [];
  for (let s = 0; s < PER_BATCH; s++) {
    samples.push({
      cluster: "rel",
      jobId: `rel-${i}`,
      node: `n${s % 3}`,
      time: new Date(Date.UTC(2026, 11, 1, 10) + s * 1000).toISOString(),
      memory: { currentBytes: 1000 + s, peakBytes: 1000 + s },
      cpu: { usageSeconds: s },
    });
  }
  return { idempotencyKey: `rel-batch-${i}`, samples };
}

async function send(url: string, body: UsageBatch): Promise<{ accepted: number; duplicates: number }> {
  const res = await fetch(`${url}/v1/usage`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as { accepted: number; duplicates: number };
}

describe("reliability: the server killed mid-batch", () => {
  let db: TestDatabase;
  let dir: string;
  let args: string[];
  let server: ServerProcess | undefined;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase("reliability");
    dir = await mkdtemp(join(tmpdir(), "jobsight-reliability-"));
    const config = join(dir, "jobsight.json");
    await writeFile(
      config,
      JSON.stringify({
        dataDir: dir,
        postgres: { url: db.url },
        http: { logLevel: "info" },
        rateLimit: { enabled: false },
        auth: { tokens: [{ token: TOKEN, role: "collector", user: "svc", cluster: "rel" }] },
      }),
      // Holds secrets: the server refuses a config file others can read.
      { mode: 0o600 },
    );
    args = ["--config", config];
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });

  afterAll(async () => {
    if (server) await stopProcess(server.child);
    await pool?.end();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps every acknowledged sample, shows nothing half-written, and stores resends once", async () => {
    server = await startServerProcess(args);
    const acknowledged = new Set<number>();
    const bodies = Array.from({ length: BATCHES }, (_, i) => batch(i));

    // Two senders at a time; the server is killed while batches are in flight.
    let next = 0;
    let killed = false;
    const sender = async (url: string) => {
      while (!killed && next < BATCHES) {
        const i = next++;
        try {
          const result = await send(url, bodies[i]);
          expect(result).toEqual({ accepted: PER_BATCH, duplicates: 0 });
          acknowledged.add(i);
        } catch {
          return;
        }
      }
    };
    const url = server.url;
    const senders = [sender(url), sender(url)];
    while (acknowledged.size < 3) await new Promise((r) => setTimeout(r, 20));
    // Let the next batches get into the server's transaction, then pull the plug.
    await new Promise((r) => setTimeout(r, 150));
    killed = true;
    await stopProcess(server.child, "SIGKILL");
    server = undefined;
    await Promise.all(senders);
    const attempted = next;
    expect(acknowledged.size).toBeLessThan(attempted);

    // Every acknowledged batch is whole; every other batch is whole or absent.
    const counts = async () => {
      const { rows } = await pool.query<{ job_id: string; n: number }>(
        "SELECT job_id, count(*)::int AS n FROM usage_samples WHERE cluster = 'rel' GROUP BY job_id",
      );
      return new Map(rows.map((r) => [r.job_id, r.n]));
    };
    const afterKill = await counts();
    for (const i of acknowledged) expect(afterKill.get(`rel-${i}`)).toBe(PER_BATCH);
    for (const n of afterKill.values()) expect(n).toBe(PER_BATCH);
    // The hourly summary moved in the same transactions as the samples.
    const { rows: summary } = await pool.query<{ job_id: string; n: number }>(
      "SELECT job_id, sum(samples)::int AS n FROM job_usage_hourly WHERE cluster = 'rel' GROUP BY job_id",
    );
    expect(new Map(summary.map((r) => [r.job_id, r.n]))).toEqual(afterKill);

    // Restart and resend everything, as collectors do for what was not acknowledged (and, after
    // a lost answer, for what was).
    server = await startServerProcess(args);
    for (let i = 0; i < BATCHES; i++) {
      const result = await send(server.url, bodies[i]);
      const already = afterKill.get(`rel-${i}`) ?? 0;
      expect(result).toEqual({ accepted: PER_BATCH - already, duplicates: already });
    }
    const final = await counts();
    expect(final.size).toBe(BATCHES);
    for (const n of final.values()) expect(n).toBe(PER_BATCH);
  }, 240_000);
});
