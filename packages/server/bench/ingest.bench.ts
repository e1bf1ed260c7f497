// Ingest: samples/s from an OTLP request (protobuf over HTTP to the real receiver) to committed
// rows, against a raw COPY of the same rows into the same server, in the same run; once on plain
// PostgreSQL and once on TimescaleDB. Then one day of realistic samples (BENCH_DAY_NODES nodes ×
// 200 jobs, every 10 s) compressed on TimescaleDB: bytes per sample before and after.
// Run: npx tsx packages/server/bench/ingest.bench.ts
// Plain PostgreSQL: its own embedded server, or the one at JOBSIGHT_BENCH_PG_URL. TimescaleDB: the
// test services' server (Debian's postgresql-15 + TimescaleDB 2.28.3 from ../shared/timescaledb,
// installed when missing), or the one at JOBSIGHT_BENCH_TIMESCALE_URL. Both are admin URLs:
// databases are created there and dropped afterwards. BENCH_BATCH, BENCH_REQUESTS,
// BENCH_CONCURRENCY and BENCH_ROUNDS change the shape; BENCH_DECODE_THREADS the server's
// otlp.decodeThreads (default: the server's own default for this machine).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeObservations } from "@jobsight/otel-bridge";
import { startTimescaleServer } from "../../../test/services/timescale-server.js";
import { EmbeddedPostgres } from "../src/data-plane/storage/embedded-postgres.js";
import type { StorageFlavour } from "../src/data-plane/storage/migration-files.js";
import { compressionDay } from "./compression-day.js";
import { benchSamples, type IngestShape, ingestRounds, type Round } from "./ingest-rounds.js";

const SHAPE: IngestShape = {
  samplesPerRequest: Number(process.env.BENCH_BATCH ?? 2_000),
  requests: Number(process.env.BENCH_REQUESTS ?? 30),
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 4),
  rounds: Number(process.env.BENCH_ROUNDS ?? 5),
  decodeThreads: process.env.BENCH_DECODE_THREADS ? Number(process.env.BENCH_DECODE_THREADS) : undefined,
};
const DAY_SHAPE = { nodes: Number(process.env.BENCH_DAY_NODES ?? 1), jobsPerNode: 200, intervalSeconds: 10 };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Prints a flavour's rounds; returns the medians. */
function report(flavour: StorageFlavour, rounds: Round[]): { ratio: number; rate: number } {
  const samples = SHAPE.samplesPerRequest * SHAPE.requests;
  console.log(`\n${flavour === "plain" ? "plain PostgreSQL" : "TimescaleDB"}:`);
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
  const rate = median(rounds.map((r) => samples / r.fullSeconds));
  const rawRate = median(rounds.map((r) => samples / r.rawSeconds));
  console.log(
    `median: OTLP path ${Math.round(rate)} samples/s, raw COPY ${Math.round(rawRate)} samples/s, ratio of pairs ${ratio.toFixed(3)}`,
  );
  return { ratio, rate };
}

async function main(): Promise<void> {
  const points = encodeObservations(benchSamples(0, 1)).resourceMetrics[0].scopeMetrics[0].metrics.length;
  console.log(
    `ingest: ${SHAPE.requests} OTLP/HTTP protobuf requests × ${SHAPE.samplesPerRequest} samples (${points} points each), ` +
      `${SHAPE.concurrency} in flight; reference: COPY of the same rows, same batches and concurrency`,
  );

  let dir: string | undefined;
  let embedded: EmbeddedPostgres | undefined;
  let plainUrl = process.env.JOBSIGHT_BENCH_PG_URL;
  let plain: { ratio: number; rate: number };
  try {
    if (!plainUrl) {
      dir = await mkdtemp(join(tmpdir(), "jobsight-bench-pg-"));
      embedded = new EmbeddedPostgres({ dir });
      plainUrl = await embedded.start();
    }
    plain = report("plain", await ingestRounds(plainUrl, "plain", SHAPE));
  } finally {
    await embedded?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }

  // One PostgreSQL at a time: the two flavours never compete for this machine's cores.
  const server = process.env.JOBSIGHT_BENCH_TIMESCALE_URL ? undefined : await startTimescaleServer();
  const timescaleUrl = process.env.JOBSIGHT_BENCH_TIMESCALE_URL ?? server!.info.url;
  let timescale: { ratio: number; rate: number };
  let day: Awaited<ReturnType<typeof compressionDay>>;
  try {
    timescale = report("timescale", await ingestRounds(timescaleUrl, "timescale", SHAPE));
    day = await compressionDay(timescaleUrl, DAY_SHAPE);
  } finally {
    await server?.stop();
  }

  const compression = day.bytesBefore / day.bytesAfter;
  console.log(
    `\ncompression: one day of ${day.nodes} node(s) × ${day.jobsPerNode} jobs every ${day.intervalSeconds} s = ${day.samples} samples, ` +
      `loaded at ${Math.round(day.loadRowsPerSecond)} rows/s (raw COPY); ${day.bytesBefore} → ${day.bytesAfter} bytes ` +
      `(${(day.bytesBefore / day.samples).toFixed(1)} → ${(day.bytesAfter / day.samples).toFixed(1)} bytes per sample, ` +
      `×${compression.toFixed(1)}) in ${day.compressSeconds.toFixed(1)} s`,
  );
  console.log(
    `BENCH ingest ratio=${plain.ratio.toFixed(3)} value=${Math.round(plain.rate)} unit=samples/s reference=copy ` +
      `timescale_ratio=${timescale.ratio.toFixed(3)} timescale_value=${Math.round(timescale.rate)} ` +
      `compression=${compression.toFixed(2)} bytes_per_sample=${(day.bytesAfter / day.samples).toFixed(1)} ` +
      `bytes_per_sample_uncompressed=${(day.bytesBefore / day.samples).toFixed(1)} ` +
      `day_nodes=${day.nodes} jobs_per_node=${day.jobsPerNode} interval_s=${day.intervalSeconds}`,
  );
}

await main();
