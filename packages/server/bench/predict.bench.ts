// Predict: p50/p99 latency of one prediction over keep-alive HTTP on loopback, and predictions/s
// in batches, against an empty authenticated route of the same server (the floor), in the same run.
// Run: npx tsx packages/server/bench/predict.bench.ts
// Uses its own embedded PostgreSQL, or the server at JOBSIGHT_BENCH_PG_URL (an admin URL: a
// database is created there and dropped afterwards). BENCH_JOBS (history imported and trained
// on), BENCH_SINGLES, BENCH_ROUNDS, BENCH_BATCH, BENCH_BATCHES and BENCH_WARM_BATCHES change the shape.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JobSpec } from "@jobsight/schemas";
import type { FastifyRequest } from "fastify";
import pg from "pg";
import { buildApp } from "../src/app.js";
import { parseServerConfig } from "../src/config/parse-config.js";
import { type ImportItem, importHistory } from "../src/data-plane/import/import-history.js";
import { swfItems } from "../src/data-plane/import/import-swf.js";
import { SwfReader } from "../src/data-plane/import/swf-parser.js";
import { LocalObjectStore } from "../src/data-plane/objects/local-object-store.js";
import { EmbeddedPostgres } from "../src/data-plane/storage/embedded-postgres.js";
import { openStorage } from "../src/data-plane/storage/open-storage.js";
import { intelligenceHandlers } from "../src/http/routes/intelligence/intelligence-handlers.js";
import { IntelligenceService } from "../src/intelligence/intelligence-service.js";
import { HttpTimer } from "./http-timer.js";

const JOBS = Number(process.env.BENCH_JOBS ?? 20_000);
const SINGLES = Number(process.env.BENCH_SINGLES ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BATCH = Number(process.env.BENCH_BATCH ?? 1_000);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 30);
const WARM_BATCHES = Number(process.env.BENCH_WARM_BATCHES ?? 10);
const TOKEN = "bench-platform-token-000000001";
const FLOOR = "/bench/floor";
const LANL = new URL("../../../data/traces/LANL-CM5-1994-4.1-cln.swf.gz", import.meta.url).pathname;

async function* firstJobs(items: AsyncIterable<ImportItem>, count: number): AsyncGenerator<ImportItem> {
  let n = 0;
  for await (const item of items) {
    if ("record" in item && n++ >= count) return;
    yield item;
  }
}

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function describe(times: readonly number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: sorted[sorted.length - 1],
  };
}

async function main(): Promise<void> {
  const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);
  let embedded: EmbeddedPostgres | undefined;
  let pgDir: string | undefined;
  const dir = await mkdtemp(join(tmpdir(), "jobsight-bench-predict-"));
  let adminUrl = process.env.JOBSIGHT_BENCH_PG_URL;
  if (!adminUrl) {
    pgDir = await mkdtemp(join(tmpdir(), "jobsight-bench-pg-"));
    embedded = new EmbeddedPostgres({ dir: pgDir });
    adminUrl = await embedded.start();
  }
  const name = `jobsight_bench_predict_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
  const opened = await openStorage({ url, poolSize: 10, timescale: "off" });
  const objects = new LocalObjectStore({ dir: join(dir, "objects") });
  const service = new IntelligenceService({
    storage: opened.storage,
    objectStore: objects,
    mode: "live",
    trainOnStart: false,
    retrainIntervalMs: 0,
    trainIn: "inline",
  });
  const config = parseServerConfig({
    objectStore: { dir: join(dir, "objects") },
    rateLimit: { enabled: false },
    http: { logLevel: "silent" },
    auth: { tokens: [{ token: TOKEN, role: "platform", user: "ops" }] },
  });
  const app = await buildApp({
    config,
    storage: opened.storage,
    objectStore: objects,
    handlers: (deps) => intelligenceHandlers(deps, service),
  });
  // The floor: the same server, plugins, rate limit, authentication and JSON body parsing as a
  // prediction, and nothing else.
  app.post(FLOOR, {
    onRequest: [
      app.rateLimit(),
      async (request: FastifyRequest) => {
        await app.authorize(request, ["platform"]);
      },
    ],
    handler: async () => ({}),
  });
  let timer: HttpTimer | undefined;
  try {
    let t = performance.now();
    const imported = await importHistory(firstJobs(swfItems(SwfReader.fromFile(LANL), "lanl"), JOBS), {
      storage: opened.storage,
      sourceId: "bench-lanl",
      sourceKind: "swf",
    });
    console.log(`imported ${imported.imported} LANL-CM5 jobs in ${seconds(t)} s`);
    t = performance.now();
    await service.start();
    const report = await service.train({ trigger: "bench" });
    if (!report.accepted)
      throw new Error(`the bench model was not put in service: ${JSON.stringify(report)}`);
    console.log(`trained ${report.version} (${report.resources.join(", ")}) in ${seconds(t)} s`);

    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as AddressInfo;
    timer = new HttpTimer(`http://127.0.0.1:${port}`, TOKEN);

    // What a portal asks just before submission: the most recent jobs' specs, without submit time.
    const { rows } = await opened.storage.pool.query<{ spec: JobSpec }>(
      "SELECT record->'spec' AS spec FROM jobs ORDER BY submitted_at DESC, job_id DESC LIMIT $1",
      [Math.max(SINGLES, BATCH)],
    );
    const specs = rows.map(({ spec: { submitTime: _, ...spec } }) => spec as JobSpec);
    const single = (i: number) => JSON.stringify({ spec: specs[i % specs.length] });
    const singles = Array.from({ length: SINGLES }, (_, i) => single(i));
    const batchBody = JSON.stringify({
      requests: Array.from({ length: BATCH }, (_, i) => ({ spec: specs[i % specs.length] })),
    });
    const check = await timer.run("/v1/predictions", [singles[0]], 1, true);
    const answered = JSON.parse(check.sample as string) as { resources: { status: string }[] };
    console.log(`a prediction: ${answered.resources.map((r) => r.status).join(", ")}`);

    // Warm-up (JIT, connections, caches), not counted: the optimising compiler's work on the
    // batch path took most of a batch's CPU on V8's helper threads over the first few batches.
    // The predictions it recorded are written before the measured runs, which would otherwise
    // pay for writing them. Batches first, then a round of singles on each route: measured
    // right after the batches, the first rounds of both routes paid for collecting the batches'
    // garbage and were slower throughout (p50 too), not only in their tail.
    await timer.run(
      "/v1/predictions/batch",
      Array.from({ length: WARM_BATCHES }, () => batchBody),
    );
    await service.flush();
    await timer.run(FLOOR, singles);
    await timer.run("/v1/predictions", singles);

    // Rounds in alternating order: a neighbour's load on this shared machine weighs on both.
    const floor: number[] = [];
    const predict: number[] = [];
    const table: Record<string, string | number>[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const runs: ["floor" | "predict", string][] = [
        ["floor", FLOOR],
        ["predict", "/v1/predictions"],
      ];
      if (round % 2 === 0) runs.reverse();
      for (const [kind, path] of runs) {
        const { times } = await timer.run(path, singles);
        (kind === "floor" ? floor : predict).push(...times);
        const d = describe([...times]);
        table.push({
          round,
          route: kind === "floor" ? FLOOR : "POST /v1/predictions",
          "p50 ms": d.p50.toFixed(3),
          "p99 ms": d.p99.toFixed(3),
          "max ms": d.max.toFixed(1),
        });
      }
    }
    console.log(`single predictions: ${ROUNDS} rounds × ${SINGLES} sequential requests over keep-alive HTTP`);
    console.table(table);

    const batchBodies = Array.from({ length: BATCHES }, () => batchBody);
    // The same jobs, each made a job of its own (a job name never seen): no request of a batch
    // shares its prediction with another, as when every job of a batch is different.
    const distinctBodies = Array.from({ length: BATCHES }, (_, b) =>
      JSON.stringify({
        requests: Array.from({ length: BATCH }, (_, i) => ({
          spec: { ...specs[i % specs.length], jobName: `bench-${b}-${i}` },
        })),
      }),
    );
    // A run counts until its predictions are written too: the next run must not pay for them.
    const recorded = async (inFlight: number, bodies = batchBodies) => {
      const run = await timer?.run("/v1/predictions/batch", bodies, inFlight);
      if (!run) throw new Error("no HTTP timer");
      const t = performance.now();
      await service.flush();
      return { ...run, totalMs: run.totalMs + (performance.now() - t) };
    };
    const sequential = await recorded(1);
    const overlapped = await recorded(2);
    const distinct = await recorded(1, distinctBodies);
    const rate = (run: { totalMs: number }) => (BATCHES * BATCH) / (run.totalMs / 1000);
    console.log(`batches: ${BATCHES} × ${BATCH} predictions per request, answered and written to PostgreSQL`);
    console.table([
      {
        jobs: "recent",
        "in flight": 1,
        "predictions/s": Math.round(rate(sequential)),
        ...batchTimes(sequential.times),
      },
      {
        jobs: "recent",
        "in flight": 2,
        "predictions/s": Math.round(rate(overlapped)),
        ...batchTimes(overlapped.times),
      },
      {
        jobs: "all distinct",
        "in flight": 1,
        "predictions/s": Math.round(rate(distinct)),
        ...batchTimes(distinct.times),
      },
    ]);

    const f = describe(floor);
    const p = describe(predict);
    const batchPerS = Math.max(rate(sequential), rate(overlapped));
    console.log(
      `floor p50 ${f.p50.toFixed(3)} ms p99 ${f.p99.toFixed(3)} ms; predict p50 ${p.p50.toFixed(3)} ms p99 ${p.p99.toFixed(3)} ms (p99 − floor p99 = ${(p.p99 - f.p99).toFixed(3)} ms)`,
    );
    console.log(
      `BENCH predict ratio=${(p.p99 / f.p99).toFixed(3)} value=${p.p99.toFixed(3)} unit=ms p99_ms=${p.p99.toFixed(3)} p50_ms=${p.p50.toFixed(3)} floor_p99_ms=${f.p99.toFixed(3)} floor_p50_ms=${f.p50.toFixed(3)} batch_per_s=${Math.round(batchPerS)} batch_distinct_per_s=${Math.round(rate(distinct))} batch_size=${BATCH} jobs=${JOBS}`,
    );
  } finally {
    await timer?.close();
    await app.close();
    await service.stop();
    await objects.close();
    await opened.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await embedded?.stop();
    await rm(dir, { recursive: true, force: true });
    if (pgDir) await rm(pgDir, { recursive: true, force: true });
  }
}

function batchTimes(times: Float64Array) {
  const d = describe([...times]);
  return { "p50 ms/request": d.p50.toFixed(1), "max ms/request": d.max.toFixed(1) };
}

await main();
