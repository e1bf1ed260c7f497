// The paired rounds of the ingest benchmark on one PostgreSQL server and one storage flavour: the
// full OTLP path (protobuf over HTTP to the real receiver, answered after COMMIT) against a raw
// COPY of the same rows into the same server, same batches and concurrency.
import { randomBytes } from "node:crypto";
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
import type { StorageFlavour } from "../src/data-plane/storage/migration-files.js";
import { type OpenedStorage, openStorage } from "../src/data-plane/storage/open-storage.js";
import { HttpSender } from "./http-sender.js";

const TOKEN = "bench-collector-token-000001";
const DAY = Date.UTC(2026, 11, 1);

// Inputs are prepared before the clock starts and their garbage collected then, so neither path
// pays at run time for what the preparation (or the other path) left behind.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** The shape of one benchmark run. */
export type IngestShape = {
  samplesPerRequest: number;
  requests: number;
  concurrency: number;
  rounds: number;
  /** The server's otlp.decodeThreads; undefined: its default for this machine. */
  decodeThreads?: number;
};

/** One paired round: seconds of the raw COPY and of the full path, for the same samples. */
export type Round = { round: number; rawSeconds: number; fullSeconds: number };

/** What a cgroup v2 collector reads for a CPU job each interval, 64 nodes, 10 s apart. */
export function benchSamples(round: number, count: number): UsageSample[] {
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

/**
 * Paired rounds on the server at `adminUrl` (two databases made there and dropped afterwards), in
 * alternating order so a neighbour's load on this shared machine weighs on both paths.
 *
 * @example
 * const rounds = await ingestRounds(adminUrl, "timescale", { samplesPerRequest: 2000, requests: 30, concurrency: 4, rounds: 5 });
 */
export async function ingestRounds(
  adminUrl: string,
  flavour: StorageFlavour,
  shape: IngestShape,
): Promise<Round[]> {
  const suffix = randomBytes(4).toString("hex");
  const names = { full: `jobsight_bench_full_${suffix}`, raw: `jobsight_bench_raw_${suffix}` };
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  for (const name of Object.values(names)) await admin.query(`CREATE DATABASE ${name}`);
  const urlOf = (name: string) => Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
  const timescale = flavour === "timescale" ? "require" : "off";
  const opened: OpenedStorage[] = [];
  const batches = <T>(items: readonly T[]): T[][] => {
    const out: T[][] = [];
    for (let i = 0; i < items.length; i += shape.samplesPerRequest)
      out.push(items.slice(i, i + shape.samplesPerRequest));
    return out;
  };
  try {
    // Two databases of the same schema on the same server: the receiver's, and the reference's.
    const full = await openStorage({ url: urlOf(names.full), poolSize: 10, timescale });
    opened.push(full);
    const raw = await openStorage({ url: urlOf(names.raw), poolSize: 10, timescale });
    opened.push(raw);
    if (flavour === "timescale") {
      // TimescaleDB's scheduler must not compress or refresh in the middle of a timed round.
      for (const s of opened)
        await s.storage.pool.query(
          "SELECT alter_job(job_id, scheduled => false) FROM timescaledb_information.jobs",
        );
    } else {
      await new SamplePartitions(raw.storage.pool).ensure([utcDay(DAY)]);
    }
    await full.storage.clusters.register({ id: "bench", name: "Bench", scheduler: "slurm" });
    const config = parseServerConfig({
      rateLimit: { enabled: false },
      otlp: {
        grpcPort: 0,
        httpPort: 0,
        ...(shape.decodeThreads ? { decodeThreads: shape.decodeThreads } : {}),
      },
      auth: { tokens: [{ token: TOKEN, role: "collector", user: "svc", cluster: "bench" }] },
    });
    const receivers = await startOtlpReceivers({ config, storage: full.storage });
    const sender = new HttpSender(receivers.http.url, TOKEN, shape.concurrency);
    // The continuous aggregate of the TimescaleDB flavour is a view: only the samples are emptied.
    const truncate =
      flavour === "plain" ? "TRUNCATE usage_samples, job_usage_hourly" : "TRUNCATE usage_samples";

    /** Seconds from the first request sent to the last answered (each answered after COMMIT). */
    const runFull = async (samples: UsageSample[]): Promise<number> => {
      const bodies = batches(samples).map((b) => encodeExportMetricsRequest(encodeObservations(b)));
      await full.storage.pool.query(truncate);
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
      await pooled(rows, shape.concurrency, async (batch) => {
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
      // Warm-up (JIT, caches, partitions or chunks), not counted.
      const warm = benchSamples(0, shape.samplesPerRequest * shape.concurrency * 3);
      await runRaw(warm);
      await runFull(warm);
      for (let round = 1; round <= shape.rounds; round++) {
        const samples = benchSamples(round, shape.samplesPerRequest * shape.requests);
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
    }
    return rounds;
  } finally {
    for (const s of opened) await s.close();
    for (const name of Object.values(names))
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
