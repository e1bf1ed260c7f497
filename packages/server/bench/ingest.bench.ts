// Ingest: samples/s from an OTLP request (protobuf over HTTP to the real receiver) to committed
// rows, against a raw COPY of the same rows into the same PostgreSQL, in the same run.
// Run: npx tsx packages/server/bench/ingest.bench.ts
// Uses its own embedded PostgreSQL, or the server at JOBSIGHT_BENCH_PG_URL (an admin URL: two
// databases are created there and dropped afterwards). BENCH_BATCH, BENCH_REQUESTS,
// BENCH_CONCURRENCY and BENCH_ROUNDS change the shape; BENCH_DECODE_THREADS the server's
// otlp.decodeThreads (default: the server's own default for this machine).
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { encodeExportMetricsRequest, encodeObservations } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import pg from "pg";
import { parseServerConfig } from "../src/config/parse-config.js";
import { copyRows } from "../src/data-plane/copy/copy-rows.js";
import { SAMPLE_COLUMNS, sampleRow } from "../src/data-plane/copy/prepared-samples.js";
import { startOtlpReceivers } from "../src/data-plane/otlp/otlp-receivers.js";
import { SamplePartitions, utcDay } from "../src/data-plane/queries/sample-partitions.js";
import { EmbeddedPostgres } from "../src/data-plane/storage/embedded-postgres.js";
import { type OpenedStorage, openStorage } from "../src/data-plane/storage/open-storage.js";
import { HttpSender } from "./http-sender.js";

const SAMPLES_PER_REQUEST = Number(process.env.BENCH_BATCH ?? 2_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TOKEN = "bench-collector-token-000001";
const DAY = Date.UTC(2026, 11, 1);

// Inputs are prepared before the clock starts and their garbage collected then, so neither path
// pays at run time for what the preparation (or the other path) left behind.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** What a cgroup v2 collector reads for a CPU job each interval, 64 nodes, 10 s apart. */
function benchSamples(round: number, count = SAMPLES_PER_REQUEST * REQUESTS): UsageSample[] {
  const out: UsageSample[] = [];
  for (let i = 0; i < count; i++) {
    const memory = 2 ** 30 + ((i * 7919) % 2 ** 20);
    out.push({
      cluster: "bench",
      jobId: `r${round}-${Math.floor(i / 640)}`,
      node: `cn${String(i % 64).padStart(3, "0")}`,
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

function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += SAMPLES_PER_REQUEST)
    out.push(items.slice(i, i + SAMPLES_PER_REQUEST));
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

async function rowCount(storage: OpenedStorage): Promise<number> {
  const { rows } = await storage.storage.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM usage_samples",
  );
  return rows[0].n;
}

type Round = { round: number; rawSeconds: number; fullSeconds: number };

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

  // Two databases of the same schema on the same server: the receiver's, and the reference's.
  const full = await openStorage({ url: urlOf(names.full), poolSize: 10, timescale: "off" });
  const raw = await openStorage({ url: urlOf(names.raw), poolSize: 10, timescale: "off" });
  await full.storage.clusters.register({ id: "bench", name: "Bench", scheduler: "slurm" });
  await new SamplePartitions(raw.storage.pool).ensure([utcDay(DAY)]);
  const config = parseServerConfig({
    rateLimit: { enabled: false },
    otlp: {
      grpcPort: 0,
      httpPort: 0,
      ...(process.env.BENCH_DECODE_THREADS
        ? { decodeThreads: Number(process.env.BENCH_DECODE_THREADS) }
        : {}),
    },
    auth: { tokens: [{ token: TOKEN, role: "collector", user: "svc", cluster: "bench" }] },
  });
  const receivers = await startOtlpReceivers({ config, storage: full.storage });
  const sender = new HttpSender(receivers.http.url, TOKEN, CONCURRENCY);

  /** Seconds from the first request sent to the last answered (each answered after COMMIT). */
  const runFull = async (samples: UsageSample[]): Promise<number> => {
    const bodies = batches(samples).map((b) => encodeExportMetricsRequest(encodeObservations(b)));
    await full.storage.pool.query("TRUNCATE usage_samples, job_usage_hourly");
    await sender.load(bodies);
    collectGarbage();
    const started = performance.now();
    await sender.send();
    const seconds = (performance.now() - started) / 1000;
    const stored = await rowCount(full);
    if (stored !== samples.length) throw new Error(`the full path stored ${stored} of ${samples.length}`);
    return seconds;
  };
  /** Seconds to COPY the same rows, same batches, same concurrency, one transaction per batch. */
  const runRaw = async (samples: UsageSample[]): Promise<number> => {
    const rows = batches(samples).map((b) => b.map(sampleRow));
    await raw.storage.pool.query("TRUNCATE usage_samples");
    collectGarbage();
    const started = performance.now();
    await pooled(rows, CONCURRENCY, async (batch) => {
      const client = await raw.storage.pool.connect();
      try {
        await client.query("BEGIN");
        await copyRows(client, "usage_samples", SAMPLE_COLUMNS, batch);
        await client.query("COMMIT");
      } finally {
        client.release();
      }
    });
    const seconds = (performance.now() - started) / 1000;
    const stored = await rowCount(raw);
    if (stored !== samples.length) throw new Error(`the raw COPY stored ${stored} of ${samples.length}`);
    return seconds;
  };

  const rounds: Round[] = [];
  try {
    // Warm-up (JIT, caches, partitions), not counted.
    const warm = benchSamples(0, SAMPLES_PER_REQUEST * CONCURRENCY * 3);
    await runRaw(warm);
    await runFull(warm);
    // Paired rounds, in alternating order: each ratio compares two runs made moments apart, so
    // a neighbour's load on this shared machine weighs on both.
    for (let round = 1; round <= ROUNDS; round++) {
      const samples = benchSamples(round);
      let rawSeconds: number;
      let fullSeconds: number;
      if (round % 2 === 1) {
        rawSeconds = await runRaw(samples);
        fullSeconds = await runFull(samples);
      } else {
        fullSeconds = await runFull(samples);
        rawSeconds = await runRaw(samples);
      }
      rounds.push({ round, rawSeconds, fullSeconds });
    }
  } finally {
    await sender.close();
    await receivers.close(5_000);
    await full.close();
    await raw.close();
    for (const name of Object.values(names))
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await embedded?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }

  const samples = SAMPLES_PER_REQUEST * REQUESTS;
  const points = encodeObservations(benchSamples(0, 1)).resourceMetrics[0].scopeMetrics[0].metrics.length;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(
    `ingest: ${REQUESTS} OTLP/HTTP protobuf requests × ${SAMPLES_PER_REQUEST} samples (${points} points each), ` +
      `${CONCURRENCY} in flight; reference: COPY of the same rows, same batches and concurrency`,
  );
  console.table(
    rounds.map((r) => ({
      round: r.round,
      "raw COPY s": r.rawSeconds.toFixed(2),
      "raw samples/s": Math.round(samples / r.rawSeconds),
      "OTLP→committed s": r.fullSeconds.toFixed(2),
      "OTLP samples/s": Math.round(samples / r.fullSeconds),
      ratio: (r.rawSeconds / r.fullSeconds).toFixed(3),
    })),
  );
  const ratio = median(rounds.map((r) => r.rawSeconds / r.fullSeconds));
  const fullRate = median(rounds.map((r) => samples / r.fullSeconds));
  const rawRate = median(rounds.map((r) => samples / r.rawSeconds));
  console.log(
    `median: OTLP path ${Math.round(fullRate)} samples/s, raw COPY ${Math.round(rawRate)} samples/s, ratio of pairs ${ratio.toFixed(3)}`,
  );
  console.log(
    `BENCH ingest ratio=${ratio.toFixed(3)} value=${Math.round(fullRate)} unit=samples/s reference=copy`,
  );
}

await main();
