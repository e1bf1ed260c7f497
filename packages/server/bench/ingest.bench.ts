// Ingest: samples/s from an OTLP request (protobuf over HTTP to the real receiver) to committed
// rows, against a raw COPY of the same rows into the same PostgreSQL, in the same run.
// Run: npx tsx packages/server/bench/ingest.bench.ts
// Uses its own embedded PostgreSQL, or the server at JOBSIGHT_BENCH_PG_URL (an admin URL: two
// databases are created there and dropped afterwards).
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  decodeExportMetricsResponse,
  encodeExportMetricsRequest,
  encodeObservations,
} from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import pg from "pg";
import { parseServerConfig } from "../src/config/parse-config.js";
import { copyRows } from "../src/data-plane/copy-rows.js";
import { EmbeddedPostgres } from "../src/data-plane/embedded-postgres.js";
import { openStorage } from "../src/data-plane/open-storage.js";
import { SamplePartitions, utcDay } from "../src/data-plane/sample-partitions.js";
import { SAMPLE_COLUMNS, sampleRow } from "../src/data-plane/sample-store.js";
import { startOtlpReceivers } from "../src/otlp/otlp-receivers.js";

const SAMPLES_PER_REQUEST = Number(process.env.BENCH_BATCH ?? 2_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TOKEN = "bench-collector-token-000001";
const DAY = Date.UTC(2026, 11, 1);

/** What a cgroup v2 collector reads for a CPU job each interval (15 data points per sample). */
function benchSamples(round: number): UsageSample[] {
  const out: UsageSample[] = [];
  const total = SAMPLES_PER_REQUEST * REQUESTS;
  for (let i = 0; i < total; i++) {
    const node = `cn${String(i % 64).padStart(3, "0")}`;
    const job = `r${round}-${Math.floor(i / 640)}`;
    const memory = 2 ** 30 + ((i * 7919) % 2 ** 20);
    out.push({
      cluster: "bench",
      jobId: job,
      node,
      time: new Date(DAY + 3_600_000 + Math.floor(i / 64) * 10_000).toISOString(),
      user: "alice",
      memory: {
        currentBytes: memory,
        peakBytes: memory + 4096,
        limitBytes: 2 ** 34,
        anonBytes: memory - 8192,
        fileBytes: 8192,
      },
      cpu: { usageSeconds: i * 0.25, userSeconds: i * 0.2, systemSeconds: i * 0.05, limitCores: 4 },
      io: { readBytes: i * 4096, writeBytes: i * 1024, readOps: i, writeOps: i },
      pids: 5 + (i % 7),
    });
  }
  return out;
}

/** Runs `work` over `items` with at most `limit` at a time. */
async function pooled<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

function post(url: URL, agent: Agent, body: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/x-protobuf",
          "content-length": body.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const answer = Buffer.concat(chunks);
          if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}: ${answer.toString()}`));
          else resolve(answer);
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function truncate(pool: pg.Pool): Promise<void> {
  await pool.query("TRUNCATE usage_samples, job_usage_hourly");
}

async function main(): Promise<void> {
  let embedded: EmbeddedPostgres | undefined;
  let dir: string | undefined;
  let adminUrl = process.env.JOBSIGHT_BENCH_PG_URL;
  if (!adminUrl) {
    dir = await mkdtemp(join(tmpdir(), "jobsight-bench-pg-"));
    embedded = new EmbeddedPostgres({ dir });
    adminUrl = await embedded.start();
  }
  const suffix = randomBytes(4).toString("hex");
  const names = { full: `jobsight_bench_full_${suffix}`, raw: `jobsight_bench_raw_${suffix}` };
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  for (const name of Object.values(names)) await admin.query(`CREATE DATABASE ${name}`);
  const urlOf = (name: string) => Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();

  const full = await openStorage({ url: urlOf(names.full), poolSize: 10, timescale: "off" });
  const raw = await openStorage({ url: urlOf(names.raw), poolSize: 10, timescale: "off" });
  const config = parseServerConfig({
    rateLimit: { enabled: false },
    otlp: { grpcPort: 0, httpPort: 0 },
    auth: { tokens: [{ token: TOKEN, role: "collector", user: "svc", cluster: "bench" }] },
  });
  await full.storage.clusters.register({ id: "bench", name: "Bench", scheduler: "slurm" });
  const receivers = await startOtlpReceivers({ config, storage: full.storage });
  const url = new URL(receivers.http.url);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const rawPartitions = new SamplePartitions(raw.storage.pool);
  await rawPartitions.ensure([utcDay(DAY)]);

  const results: { round: number; path: string; seconds: number; samplesPerSecond: number }[] = [];
  const runFull = async (round: number, samples: UsageSample[], timed: boolean) => {
    const bodies: Uint8Array[] = [];
    for (let i = 0; i < samples.length; i += SAMPLES_PER_REQUEST) {
      bodies.push(encodeExportMetricsRequest(encodeObservations(samples.slice(i, i + SAMPLES_PER_REQUEST))));
    }
    await truncate(full.storage.pool);
    const started = performance.now();
    await pooled(bodies, CONCURRENCY, async (body) => {
      const answer = decodeExportMetricsResponse(await post(url, agent, body));
      if (answer.partialSuccess) throw new Error(`rejected: ${answer.partialSuccess.errorMessage}`);
    });
    const seconds = (performance.now() - started) / 1000;
    const { rows } = await full.storage.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM usage_samples",
    );
    if (rows[0].n !== samples.length) throw new Error(`full path stored ${rows[0].n} of ${samples.length}`);
    if (timed)
      results.push({
        round,
        path: "OTLP/HTTP → committed",
        seconds,
        samplesPerSecond: samples.length / seconds,
      });
  };
  const runRaw = async (round: number, samples: UsageSample[], timed: boolean) => {
    const batches: unknown[][][] = [];
    for (let i = 0; i < samples.length; i += SAMPLES_PER_REQUEST) {
      batches.push(samples.slice(i, i + SAMPLES_PER_REQUEST).map(sampleRow));
    }
    await truncate(raw.storage.pool);
    const started = performance.now();
    await pooled(batches, CONCURRENCY, async (rows) => {
      const client = await raw.storage.pool.connect();
      try {
        await client.query("BEGIN");
        await copyRows(client, "usage_samples", SAMPLE_COLUMNS, rows as never);
        await client.query("COMMIT");
      } finally {
        client.release();
      }
    });
    const seconds = (performance.now() - started) / 1000;
    if (timed) results.push({ round, path: "raw COPY", seconds, samplesPerSecond: samples.length / seconds });
  };

  try {
    // Warm-up (JIT, caches, partitions), not counted.
    const warm = benchSamples(99).slice(0, SAMPLES_PER_REQUEST * CONCURRENCY);
    await runRaw(0, warm, false);
    await runFull(0, warm, false);
    for (let round = 1; round <= ROUNDS; round++) {
      const samples = benchSamples(round);
      await runRaw(round, samples, true);
      await runFull(round, samples, true);
    }
  } finally {
    agent.destroy();
    await receivers.close(5_000);
    await full.close();
    await raw.close();
    for (const name of Object.values(names))
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await embedded?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }

  const median = (path: string) => {
    const values = results
      .filter((r) => r.path === path)
      .map((r) => r.samplesPerSecond)
      .sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)];
  };
  console.log(
    `ingest: ${REQUESTS} requests × ${SAMPLES_PER_REQUEST} samples (15 points each), ${CONCURRENCY} in flight, ${ROUNDS} rounds`,
  );
  console.table(
    results.map((r) => ({
      round: r.round,
      path: r.path,
      seconds: r.seconds.toFixed(2),
      "samples/s": Math.round(r.samplesPerSecond),
    })),
  );
  const fullRate = median("OTLP/HTTP → committed");
  const rawRate = median("raw COPY");
  console.log(
    `median: full path ${Math.round(fullRate)} samples/s, raw COPY ${Math.round(rawRate)} samples/s`,
  );
  console.log(
    `BENCH ingest ratio=${(fullRate / rawRate).toFixed(3)} value=${Math.round(fullRate)} unit=samples/s reference=copy`,
  );
}

await main();
