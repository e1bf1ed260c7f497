import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Metadata } from "@grpc/grpc-js";
import {
  encodeExportMetricsRequest,
  encodeObservations,
  observationsToResourceMetrics,
} from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { OTLPMetricExporter as GrpcExporter } from "@opentelemetry/exporter-metrics-otlp-grpc";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { importHistory } from "../../../src/data-plane/import/import-history.js";
import { importSacctFile } from "../../../src/data-plane/import/import-sacct.js";
import { swfItems } from "../../../src/data-plane/import/import-swf.js";
import { SwfReader } from "../../../src/data-plane/import/swf-parser.js";
import { type OtlpReceivers, startOtlpReceivers } from "../../../src/data-plane/otlp/otlp-receivers.js";
import { postOtlp } from "../otlp/otlp-clients.js";
import { richSamples } from "../otlp/otlp-fixture.js";
import { jobRecord, usageSample } from "../storage-fixture.js";
import { bearer, PRINCIPALS, TOKENS, testServerConfig } from "../test-server-config.js";
import { openTimescaleStorage, sampleChunks, type TimescaleFixture } from "./timescale-fixture.js";

const LANL = new URL("../../../../../data/traces/LANL-CM5-1994-4.1-cln.swf.gz", import.meta.url).pathname;
const SACCT = new URL("../../fixtures/sacct-all-states.json", import.meta.url).pathname;
const COLLECTOR = PRINCIPALS.collector;

let fx: TimescaleFixture;
let receivers: OtlpReceivers;
let app: FastifyInstance;
let objects: string;

beforeAll(async () => {
  fx = await openTimescaleStorage("ts_ingest");
  await fx.storage.clusters.register({ id: "hpc1", name: "HPC1", scheduler: "slurm" });
  const otlpConfig = parseServerConfig({
    rateLimit: { enabled: false },
    otlp: { grpcPort: 0, httpPort: 0 },
    auth: { tokens: [COLLECTOR] },
  });
  receivers = await startOtlpReceivers({ config: otlpConfig, storage: fx.storage });
  objects = await mkdtemp(join(tmpdir(), "jobsight-ts-objects-"));
  app = await buildApp({
    config: testServerConfig(objects, [PRINCIPALS.alice, PRINCIPALS.bob, COLLECTOR]),
    storage: fx.storage,
  });
});
afterAll(async () => {
  await app?.close();
  await receivers?.close(1_000);
  await fx?.dispose();
  if (objects) await rm(objects, { recursive: true, force: true });
});

async function rowCount(): Promise<number> {
  const { rows } = await fx.storage.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_samples");
  return rows[0].n;
}

/** What storage holds for these samples' jobs, in the store's order (time, node, step). */
async function stored(samples: UsageSample[]): Promise<UsageSample[]> {
  const out: UsageSample[] = [];
  for (const job of new Set(samples.map((s) => s.jobId))) {
    out.push(...(await fx.storage.samples.series("hpc1", job)).samples);
  }
  return out;
}

function inStoreOrder(samples: UsageSample[]): UsageSample[] {
  const key = (s: UsageSample) => `${s.jobId}\u0000${s.time}\u0000${s.node}\u0000${s.step ?? ""}`;
  return [...samples].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

describe("ingest into TimescaleDB (OTLP, REST, history import)", () => {
  it("stores every value the real OTLP gRPC exporter sends in the hypertable, and a resend stores nothing twice", async () => {
    const samples = [
      ...richSamples("hpc1", "grpc-1", 30, "gpu07"),
      ...richSamples("hpc1", "grpc-1", 30, "gpu08"),
    ];
    const metadata = new Metadata();
    metadata.set("authorization", `Bearer ${COLLECTOR.token}`);
    const exporter = new GrpcExporter({ url: receivers.grpc.url, metadata });
    try {
      const send = async () => {
        const results: ExportResult[] = [];
        for (const rm of observationsToResourceMetrics(samples, { scheduler: "slurm" })) {
          results.push(await new Promise<ExportResult>((resolve) => exporter.export(rm, resolve)));
        }
        return results.map((r) => r.code);
      };
      expect(await send()).toEqual([ExportResultCode.SUCCESS, ExportResultCode.SUCCESS]);
      expect(await stored(samples)).toEqual(inStoreOrder(samples));
      const rows = await rowCount();
      expect(await send()).toEqual([ExportResultCode.SUCCESS, ExportResultCode.SUCCESS]);
      expect(await rowCount()).toBe(rows);
    } finally {
      await exporter.shutdown();
    }
  });

  it("takes an OTLP/HTTP resend whose samples now sit in a compressed chunk as duplicates, and late samples too", async () => {
    const samples = richSamples("hpc1", "http-1", 40, "cn001");
    const body = encodeExportMetricsRequest(encodeObservations(samples));
    const headers = { authorization: `Bearer ${COLLECTOR.token}`, "content-type": "application/x-protobuf" };
    expect((await postOtlp(receivers.http.url, body, headers)).status).toBe(200);
    await fx.storage.pool.query(
      "SELECT compress_chunk(c, if_not_compressed => true) FROM show_chunks('usage_samples') c",
    );
    expect((await sampleChunks(fx.storage.pool)).every((c) => c.compressed)).toBe(true);
    const rows = await rowCount();

    // The fast path's COPY meets the compressed rows' unique key; the staging path then counts them.
    expect((await postOtlp(receivers.http.url, body, headers)).status).toBe(200);
    expect(await rowCount()).toBe(rows);
    const late = richSamples("hpc1", "http-1", 45, "cn001").slice(40);
    const lateBody = encodeExportMetricsRequest(encodeObservations([...samples.slice(0, 5), ...late]));
    expect((await postOtlp(receivers.http.url, lateBody, headers)).status).toBe(200);
    expect(await rowCount()).toBe(rows + late.length);
    expect(await stored(samples)).toEqual(inStoreOrder([...samples, ...late]));
  });

  it("stores JSON batches from POST /v1/usage and serves them to the job's owner only", async () => {
    const ingestJobs = await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: bearer(TOKENS.collector),
      payload: { records: [jobRecord("hpc1", "rest-1", "alice", 1)] },
    });
    expect(ingestJobs.json()).toEqual({ accepted: 1, duplicates: 0 });
    const samples = [0, 30, 60, 90].map((s) => ({ ...usageSample("hpc1", "rest-1", "n1", s, 100 + s) }));
    const post = (idempotencyKey: string) =>
      app.inject({
        method: "POST",
        url: "/v1/usage",
        headers: bearer(TOKENS.collector),
        payload: { idempotencyKey, samples },
      });
    expect((await post("ts-usage-0001")).json()).toEqual({ accepted: 4, duplicates: 0 });
    expect((await post("ts-usage-0002")).json()).toEqual({ accepted: 0, duplicates: 4 });
    const series = await app.inject({
      url: "/v1/jobs/rest-1/usage?stepSeconds=60",
      headers: bearer(TOKENS.alice),
    });
    expect(series.statusCode).toBe(200);
    expect(series.json().samples.map((s: UsageSample) => s.memory?.peakBytes)).toEqual([130, 190]);
    const asBob = await app.inject({ url: "/v1/jobs/rest-1/usage", headers: bearer(TOKENS.bob) });
    expect(asBob.json()).toMatchObject({ code: "NOT_FOUND", statusCode: 404 });
    expect(await fx.storage.samples.jobSummary("hpc1", "rest-1")).toMatchObject({
      samples: 4,
      maxMemoryBytes: 190,
      maxCpuSeconds: 45,
    });
  });

  it("imports job history (sacct and SWF) and summarises it for the predictor", async () => {
    const sacct = await importSacctFile(SACCT, { storage: fx.storage, format: "json", cluster: "slurm-ts" });
    expect(sacct).toMatchObject({ imported: 12, duplicates: 0, badLines: 0 });
    expect(await fx.storage.jobs.count("slurm-ts")).toBe(12);
    const text = gunzipSync(await readFile(LANL))
      .toString("utf8")
      .split("\n")
      .slice(0, 5_030)
      .join("\n");
    const options = { storage: fx.storage, sourceId: "test:ts-lanl", sourceKind: "swf", batchSize: 1_000 };
    const swf = await importHistory(swfItems(SwfReader.fromBuffer(text), "lanl-ts"), options);
    // The first lines of the log are its header; the rest are jobs.
    expect(swf).toMatchObject({ duplicates: 0, badLines: 0 });
    expect(swf.imported).toBeGreaterThan(4_900);
    expect(await fx.storage.jobs.count("lanl-ts")).toBe(swf.imported);
    const again = await importHistory(swfItems(SwfReader.fromBuffer(text), "lanl-ts"), {
      ...options,
      restart: true,
    });
    expect(again).toMatchObject({ imported: 0, duplicates: swf.imported });
    const groups = await fx.storage.history({ cluster: "lanl-ts", minCount: 50 });
    expect(groups.some((g) => g.level === "user" && g.peakMemoryBytes.n > 0)).toBe(true);
  });
});
