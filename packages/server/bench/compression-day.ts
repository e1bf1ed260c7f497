// One day of realistic samples in the TimescaleDB flavour, compressed as the policy would: what a
// sample costs on disk before and after compression, for docs/sizing.md.
import { randomBytes } from "node:crypto";
import type { UsageSample } from "@jobsight/schemas";
import pg from "pg";
import { copyRows } from "../src/data-plane/copy/copy-rows.js";
import { SAMPLE_COLUMNS, sampleRow } from "../src/data-plane/copy/prepared-samples.js";
import { openStorage } from "../src/data-plane/storage/open-storage.js";

const DAY_MS = 86_400_000;
const GIB = 2 ** 30;

/** The day to generate. */
export type CompressionDayShape = {
  nodes: number;
  jobsPerNode: number;
  intervalSeconds: number;
};

/** What one compressed day measured. */
export type CompressionDay = CompressionDayShape & {
  samples: number;
  /** Rows per second of a raw COPY of the day into the hypertable (4 connections). */
  loadRowsPerSecond: number;
  /** Table, indexes and TOAST of the day's chunk before compression. */
  bytesBefore: number;
  bytesAfter: number;
  compressSeconds: number;
};

/** A small deterministic generator: the same day every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

type JobState = {
  jobId: string;
  user: string;
  cores: number;
  limit: number;
  memory: number;
  cpu: number;
  read: number;
  written: number;
  ops: number;
  pids: number;
  busy: number;
};

/**
 * What a node's collector sends for its jobs at one instant: cgroup v2 memory, CPU, I/O, pids and
 * pressure, each job with its own size, load and drift (memory wanders, counters only grow).
 */
function instant(
  node: string,
  jobs: JobState[],
  time: string,
  next: () => number,
  interval: number,
): UsageSample[] {
  return jobs.map((job) => {
    job.memory = Math.max(64 * 2 ** 20, Math.min(job.limit, job.memory + (next() - 0.48) * 2 ** 24));
    job.cpu += job.cores * job.busy * interval * (0.9 + next() * 0.2);
    job.read += Math.floor(next() * 2 ** 20);
    job.written += Math.floor(next() * 2 ** 18);
    job.ops += Math.floor(next() * 300);
    const memory = Math.round(job.memory);
    return {
      cluster: "site",
      jobId: job.jobId,
      node,
      time,
      user: job.user,
      memory: {
        currentBytes: memory,
        peakBytes: memory + Math.floor(next() * 2 ** 20),
        limitBytes: job.limit,
        anonBytes: Math.round(memory * 0.9),
        fileBytes: Math.round(memory * 0.1),
      },
      cpu: {
        usageSeconds: Math.round(job.cpu * 1000) / 1000,
        userSeconds: Math.round(job.cpu * 900) / 1000,
        systemSeconds: Math.round(job.cpu * 100) / 1000,
        limitCores: job.cores,
      },
      io: { readBytes: job.read, writeBytes: job.written, readOps: job.ops, writeOps: job.ops >> 2 },
      pids: job.pids,
      pressure: {
        cpuSome: Math.round(next() * 500) / 100,
        memorySome: 0,
        ioSome: Math.round(next() * 200) / 100,
      },
    };
  });
}

/**
 * Loads a generated day (nodes × jobsPerNode samples every intervalSeconds) into a new database on
 * the TimescaleDB server at `adminUrl`, compresses its chunk, and reports the sizes.
 *
 * @example
 * const day = await compressionDay(tsAdminUrl, { nodes: 1, jobsPerNode: 200, intervalSeconds: 10 });
 */
export async function compressionDay(adminUrl: string, shape: CompressionDayShape): Promise<CompressionDay> {
  const name = `jobsight_bench_day_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
  const opened = await openStorage({ url, poolSize: 4, timescale: "require" });
  try {
    const pool = opened.storage.pool;
    await pool.query("SELECT alter_job(job_id, scheduled => false) FROM timescaledb_information.jobs");
    const next = random(42);
    const day = Math.floor(Date.now() / DAY_MS) * DAY_MS - 10 * DAY_MS;
    const nodes = Array.from({ length: shape.nodes }, (_, n) => ({
      node: `cn${String(n).padStart(4, "0")}`,
      jobs: Array.from({ length: shape.jobsPerNode }, (_, j): JobState => {
        const limit = (1 + Math.floor(next() * 16)) * GIB;
        return {
          jobId: String(4_200_000 + n * shape.jobsPerNode + j),
          user: `user${Math.floor(next() * 300)}`,
          cores: 1 + Math.floor(next() * 8),
          limit,
          memory: limit * (0.1 + next() * 0.6),
          cpu: 0,
          read: 0,
          written: 0,
          ops: 0,
          pids: 1 + Math.floor(next() * 30),
          busy: 0.2 + next() * 0.8,
        };
      }),
    }));
    const steps = Math.floor(DAY_MS / 1000 / shape.intervalSeconds);
    // Ten minutes of every node per COPY, four COPYs in flight.
    const perBatch = Math.max(1, Math.floor(600 / shape.intervalSeconds));
    let samples = 0;
    const started = performance.now();
    const inFlight = new Set<Promise<void>>();
    for (let step = 0; step < steps; step += perBatch) {
      const rows = [];
      for (let s = step; s < Math.min(steps, step + perBatch); s++) {
        const time = new Date(day + s * shape.intervalSeconds * 1000).toISOString();
        for (const { node, jobs } of nodes) {
          for (const sample of instant(node, jobs, time, next, shape.intervalSeconds))
            rows.push(sampleRow(sample));
        }
      }
      samples += rows.length;
      const copy = (async () => {
        const client = await pool.connect();
        try {
          await copyRows(client, "usage_samples", SAMPLE_COLUMNS, rows);
        } finally {
          client.release();
        }
      })();
      inFlight.add(copy);
      const settle = () => inFlight.delete(copy);
      copy.then(settle, settle);
      if (inFlight.size >= 4) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    const loadSeconds = (performance.now() - started) / 1000;

    await pool.query("VACUUM ANALYZE usage_samples");
    const compressing = performance.now();
    await pool.query("SELECT compress_chunk(c) FROM show_chunks('usage_samples') c");
    const compressSeconds = (performance.now() - compressing) / 1000;
    const { rows } = await pool.query<{ before: string; after: string }>(
      `SELECT sum(before_compression_total_bytes) AS before, sum(after_compression_total_bytes) AS after
       FROM chunk_compression_stats('usage_samples')`,
    );
    return {
      ...shape,
      samples,
      loadRowsPerSecond: samples / loadSeconds,
      bytesBefore: Number(rows[0].before),
      bytesAfter: Number(rows[0].after),
      compressSeconds,
    };
  } finally {
    await opened.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
