import type { JobRecord, JobSpec, Prediction, UsageBatch, UsageSample } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { importHistory } from "../../../src/data-plane/import/import-history.js";
import { swfItems } from "../../../src/data-plane/import/import-swf.js";
import { SwfReader } from "../../../src/data-plane/import/swf-parser.js";
import { createObjectStore } from "../../../src/data-plane/objects/create-object-store.js";
import type { ObjectStore } from "../../../src/data-plane/objects/object-store.js";
import { LEADER_LOCK } from "../../../src/data-plane/storage/leader-lease.js";
import { loadMigrations } from "../../../src/data-plane/storage/migration-files.js";
import { type OpenedStorage, openStorage } from "../../../src/data-plane/storage/open-storage.js";
import { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import { FAST_TRAINING, LANL } from "../intelligence/intelligence-fixture.js";
import { collectorPrincipal, type TestPrincipal } from "../test-server-config.js";
import { eventually, RATE_LIMIT, ReplicaStand, RoundRobinClient } from "./replica-stand.js";

// Issue #29, several replicas: two real server processes on one PostgreSQL database and one S3
// bucket, a client that sends each request to the next replica and, when one is killed, sends it
// again to the other. Nothing may be lost or stored twice, the leader's scheduled work moves to
// the survivor, a promoted model reaches the other replica within seconds, either replica answers
// the same prediction the same way, and the rate limit counts both replicas' requests together.

const P = {
  collector: collectorPrincipal("rep"),
  admin: { token: "admin-replicas-token-0000001", role: "admin", user: "root" },
  ops: { token: "platform-ops-replicas-token-01", role: "platform", user: "ops" },
  portal: { token: "platform-portal-replicas-token1", role: "platform", user: "portal" },
  batcher: { token: "platform-batcher-replicas-tok1", role: "platform", user: "batcher" },
  carol: { token: "researcher-carol-replicas-tok1", role: "researcher", user: "carol" },
} as const satisfies Record<string, TestPrincipal>;

const BATCHES = 16;
const PER_BATCH = 3000;

function usageBatch(i: number): UsageBatch {
  const samples: UsageSample[] = [];
  for (let s = 0; s < PER_BATCH; s++) {
    samples.push({
      cluster: "rep",
      jobId: `rep-${i}`,
      node: `n${s % 3}`,
      time: new Date(Date.UTC(2026, 11, 5, 10) + s * 1000).toISOString(),
      memory: { currentBytes: 1000 + s, peakBytes: 1000 + s },
      cpu: { usageSeconds: s },
    });
  }
  return { idempotencyKey: `rep-batch-${i}`, samples };
}

function jobRecord(i: number): JobRecord {
  return {
    cluster: "rep",
    jobId: `rep-${i}`,
    phase: "submitted",
    source: "slurm-controller",
    spec: {
      cluster: "rep",
      scheduler: "slurm",
      user: "carol",
      requested: { memoryBytes: 2 ** 30, cores: 2 },
    },
    submittedAt: new Date(Date.UTC(2026, 11, 5, 9) + i * 1000).toISOString(),
  };
}

/** The answer without what differs between any two answers (its id and time). */
function served(p: Prediction) {
  const { id: _id, createdAt: _at, ...rest } = p;
  return rest;
}

/** Runs `senders` loops over `items` at once, each taking the next item until none is left. */
async function inParallel<T>(items: readonly T[], senders: number, send: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (next < items.length) await send(items[next++]);
    }),
  );
}

describe("several replicas on one database and one bucket", () => {
  let stand: ReplicaStand;
  let storage: OpenedStorage;
  let objects: ObjectStore;
  let trainer: IntelligenceService;
  let importedAt = 0;
  const versions: string[] = [];

  const direct = async (i: number, method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${stand.urls[i]}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text.startsWith("{") ? JSON.parse(text) : text };
  };
  const leads = async (i: number) => {
    const res = await direct(i, "GET", "/metrics", P.ops.token);
    return /^jobsight_leader 1$/m.test(res.json as string);
  };
  const servedVersion = async (i: number) =>
    ((await direct(i, "GET", "/v1/models", P.ops.token)).json as { servedVersion: string | null })
      .servedVersion;

  beforeAll(async () => {
    stand = await ReplicaStand.create(Object.values(P));
    // Both at the same moment, on a database nothing has migrated yet.
    await Promise.all([stand.start(0), stand.start(1)]);
    storage = await openStorage({ url: stand.db.url, poolSize: 4 });
    const config = parseServerConfig({ objectStore: stand.objectStoreConfig });
    objects = createObjectStore(config.objectStore);
  }, 240_000);

  afterAll(async () => {
    await trainer?.stop();
    await objects?.close();
    await storage?.close();
    await stand?.dispose();
  });

  it("applies the migrations once when both replicas start at the same moment", async () => {
    const applied = stand.replicas.map((r) => r?.output.some((l) => l.includes('"migrations applied"')));
    expect(applied.filter(Boolean)).toHaveLength(1);
    const { rows } = await storage.storage.pool.query<{ version: number }>(
      "SELECT version FROM jobsight_migrations ORDER BY version",
    );
    expect(rows.map((r) => r.version)).toEqual((await loadMigrations()).map((m) => m.version));
  });

  it("runs the scheduled work on one leader, and on the other replica once the leader is killed", async () => {
    const leader = await eventually(
      "exactly one leader",
      async () => {
        const now = await Promise.all([leads(0), leads(1)]);
        return now.filter(Boolean).length === 1 ? now.indexOf(true) : undefined;
      },
      20_000,
    );
    const survivor = 1 - leader;
    const killedAt = Date.now();
    await stand.kill(leader);
    await eventually("the survivor leads", async () => ((await leads(survivor)) ? true : undefined), 20_000);
    const failoverMs = Date.now() - killedAt;
    // One lease interval (5 s) and a round trip, not a timeout of minutes.
    expect(failoverMs).toBeLessThan(12_000);
    const { rows } = await storage.storage.pool.query(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = $1",
      [LEADER_LOCK],
    );
    expect(rows).toHaveLength(1);

    // The killed replica comes back as a follower: the lease stays where it is.
    await stand.start(leader);
    await new Promise((r) => setTimeout(r, 6000));
    expect(await Promise.all([leads(0), leads(1)])).toEqual(leader === 0 ? [false, true] : [true, false]);
  }, 120_000);

  it("stores every sample and job once when a replica is killed mid-ingest and batches are resent", async () => {
    const client = new RoundRobinClient(() => stand.urls, P.collector.token);
    const records = await client.send("POST", "/v1/jobs", {
      records: Array.from({ length: BATCHES }, (_, i) => jobRecord(i)),
    });
    expect(records.status).toBe(200);

    const acknowledged = new Set<number>();
    const bodies = Array.from({ length: BATCHES }, (_, i) => usageBatch(i));
    const victim = 0;
    let killing: Promise<void> | undefined;
    await inParallel(
      bodies.map((_, i) => i),
      2,
      async (i) => {
        const res = await client.send("POST", "/v1/usage", bodies[i]);
        expect(res.status).toBe(200);
        const result = res.json as { accepted: number; duplicates: number };
        expect(result.accepted + result.duplicates).toBe(PER_BATCH);
        acknowledged.add(i);
        // After three batches, while the next ones are in the replica's transactions, pull its plug.
        if (acknowledged.size === 3 && !killing) {
          killing = new Promise((r) => setTimeout(r, 150)).then(() => stand.kill(victim));
        }
      },
    );
    await killing;
    expect(acknowledged.size).toBe(BATCHES);
    expect(client.retried).toBeGreaterThan(0);

    // Resent as a collector does after a lost answer: stored once, reported as duplicates.
    const again = await client.send("POST", "/v1/usage", bodies[0]);
    expect(again.json).toEqual({ accepted: 0, duplicates: PER_BATCH });

    const pool = storage.storage.pool;
    const { rows } = await pool.query<{ job_id: string; n: number; distinct_n: number }>(
      `SELECT job_id, count(*)::int AS n, count(DISTINCT (node, time))::int AS distinct_n
       FROM usage_samples WHERE cluster = 'rep' GROUP BY job_id ORDER BY job_id`,
    );
    expect(rows).toHaveLength(BATCHES);
    for (const r of rows) expect([r.n, r.distinct_n]).toEqual([PER_BATCH, PER_BATCH]);
    // The hourly summary moved with the samples, once.
    const summary = await pool.query<{ n: number }>(
      "SELECT sum(samples)::int AS n FROM job_usage_hourly WHERE cluster = 'rep'",
    );
    expect(summary.rows[0].n).toBe(BATCHES * PER_BATCH);
    const jobs = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE cluster = 'rep'");
    expect(jobs.rows[0].n).toBe(BATCHES);
    await stand.start(victim);
  }, 180_000);

  it("serves a model trained or promoted through one replica from the other within seconds", async () => {
    const items = swfItems(SwfReader.fromFile(LANL), "lanl");
    let n = 0;
    async function* first2000() {
      for await (const item of items) {
        if ("record" in item && n++ >= 2000) return;
        yield item;
      }
    }
    await importHistory(first2000(), {
      storage: storage.storage,
      sourceId: "replicas-lanl",
      sourceKind: "swf",
    });
    importedAt = Date.now();
    // Trained outside both replicas, as `jobsight-server train` does: they hear of it from PostgreSQL.
    trainer = new IntelligenceService({
      storage: storage.storage,
      objectStore: objects,
      trainOnStart: false,
      retrainIntervalMs: 0,
      recalibrateIntervalMs: 0,
      refreshIntervalMs: 3_600_000,
      minJobsPerResource: 200,
      holdoutShare: 0.2,
      minComparisonJobs: 50,
      training: FAST_TRAINING,
    });
    await trainer.start();
    const accepted = await trainer.train({ trigger: "test" });
    expect(accepted).toMatchObject({ trained: true, accepted: true });
    const worse = await trainer.train({
      trigger: "test",
      training: { ...FAST_TRAINING, conformal: { missRate: 0.25, usageMissRate: 0.25 } },
    });
    expect(worse).toMatchObject({ trained: true, accepted: false });
    versions.push(accepted.version as string, worse.version as string);
    const [v1, v2] = versions;
    await eventually(
      "both replicas serve the trained model",
      async () => ((await servedVersion(0)) === v1 && (await servedVersion(1)) === v1 ? true : undefined),
      5000,
    );

    // Promoted through replica 0: replica 1 serves it well before its 10 s refresh.
    for (const [via, other, version] of [
      [0, 1, v2],
      [1, 0, v1],
    ] as const) {
      const at = Date.now();
      const res = await direct(via, "POST", `/v1/models/${version}/promote`, P.admin.token);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ activeVersion: version, servedVersion: version });
      await eventually(
        `replica ${other} serves ${version}`,
        async () => ((await servedVersion(other)) === version ? true : undefined),
        5000,
      );
      expect(Date.now() - at).toBeLessThan(3000);
    }
  }, 240_000);

  it("answers the same request the same way whichever replica answers", async () => {
    // Both replicas read the imported history at their next refresh (every 10 s).
    await new Promise((r) => setTimeout(r, Math.max(0, importedAt + 12_000 - Date.now())));
    const { rows } = await storage.storage.pool.query<{ spec: JobSpec }>(
      "SELECT record->'spec' AS spec FROM jobs WHERE cluster = 'lanl' ORDER BY submitted_at DESC, job_id LIMIT 20",
    );
    expect(rows).toHaveLength(20);
    for (const { spec } of rows) {
      const { submitTime: _, ...fresh } = spec;
      const [a, b] = await Promise.all(
        [0, 1].map((i) => direct(i, "POST", "/v1/predictions", P.portal.token, { spec: fresh })),
      );
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(served(a.json as Prediction)).toEqual(served(b.json as Prediction));
      expect((a.json as Prediction).modelVersion).toBe(versions[0]);
      expect((a.json as Prediction).id).not.toBe((b.json as Prediction).id);
    }
  }, 120_000);

  it("records every keyed prediction once, as answered, when a replica is killed mid-prediction", async () => {
    const { rows } = await storage.storage.pool.query<{ spec: JobSpec }>(
      "SELECT record->'spec' AS spec FROM jobs WHERE cluster = 'lanl' ORDER BY submitted_at, job_id LIMIT 40",
    );
    const client = new RoundRobinClient(() => stand.urls, P.batcher.token);
    const answers = new Map<string, string>();
    const victim = 1;
    let killing: Promise<void> | undefined;
    let done = 0;
    try {
      await inParallel(
        Array.from({ length: 24 }, (_, b) => b),
        2,
        async (b) => {
          const requests = rows.map(({ spec }, j) => ({ spec, idempotencyKey: `kill-${b}-${j}` }));
          const res = await client.send("POST", "/v1/predictions/batch", { requests });
          expect(res.status).toBe(200);
          const { predictions } = res.json as { predictions: Prediction[] };
          for (const [j, p] of predictions.entries()) answers.set(requests[j].idempotencyKey, p.id);
          if (++done === 3 && !killing) {
            killing = new Promise((r) => setTimeout(r, 30)).then(() => stand.kill(victim));
          }
        },
      );
      await killing;
      expect(client.retried).toBeGreaterThan(0);
      expect(answers.size).toBe(24 * rows.length);

      // Keyed answers are written before they are given: all there at once, as answered.
      const { rows: stored } = await storage.storage.pool.query<{ key: string; id: string }>(
        "SELECT idempotency_key AS key, id FROM predictions WHERE idempotency_key LIKE 'kill-%'",
      );
      const byKey = new Map(stored.map((r) => [r.key, r.id]));
      const lost = [...answers].filter(([key, id]) => byKey.get(key) !== id);
      expect(lost).toEqual([]);
      expect(stored).toHaveLength(answers.size);
    } finally {
      // Back for the next test, whatever this one found.
      await killing;
      if (!stand.replicas[victim]) await stand.start(victim);
    }
  }, 180_000);

  it("counts the rate limit of a token over both replicas together", async () => {
    // 200 requests at 40 per second, alternating: each replica on its own would admit all of its
    // 100 (its burst of 60 and 10 a second); together they may admit the burst once, plus the
    // refill and what the two admit between two syncs of their counts (every 500 ms).
    let admitted = 0;
    let limited = 0;
    for (let k = 0; k < 200; k++) {
      const at = Date.now();
      const res = await direct(k % 2, "GET", "/v1/jobs?limit=1", P.carol.token);
      if (res.status === 200) admitted++;
      else if (res.status === 429) limited++;
      else throw new Error(`unexpected ${res.status}`);
      await new Promise((r) => setTimeout(r, Math.max(0, 25 - (Date.now() - at))));
    }
    expect(admitted + limited).toBe(200);
    expect(admitted).toBeGreaterThanOrEqual(RATE_LIMIT.burst);
    expect(limited).toBeGreaterThanOrEqual(40);
  }, 60_000);
});
