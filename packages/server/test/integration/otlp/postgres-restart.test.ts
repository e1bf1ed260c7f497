import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { encodeExportMetricsRequest, encodeObservations } from "@jobsight/otel-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../../../../test/services/free-port.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { type OtlpReceivers, startOtlpReceivers } from "../../../src/data-plane/otlp/otlp-receivers.js";
import { EmbeddedPostgres } from "../../../src/data-plane/storage/embedded-postgres.js";
import { type OpenedStorage, openStorage } from "../../../src/data-plane/storage/open-storage.js";
import { decodeStatus, grpcRetryDelay, postOtlp, RawGrpcClient } from "./otlp-clients.js";
import { richSamples } from "./otlp-fixture.js";

const TOKEN = "collector-restart-token-00001";
const BATCHES = 16;
const PER_BATCH = 40;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Batch i is job restart-<transport>-i alone, so a batch stored in part would show as a short job.
const batch = (transport: string, i: number) =>
  encodeExportMetricsRequest(encodeObservations(richSamples("rst", `restart-${transport}-${i}`, PER_BATCH)));

type Refusal = { status: number | GrpcStatus; retryAfter?: number };

/**
 * A sender that behaves like a collector with a spool: resends a batch until it is acknowledged,
 * and records every refusal it got on the way.
 */
async function sendAll(
  send: (bytes: Uint8Array) => Promise<"ok" | Refusal>,
  transport: string,
  acknowledged: Set<string>,
  refusals: Refusal[],
  pace: () => Promise<void>,
): Promise<void> {
  for (let i = 0; i < BATCHES; i++) {
    const bytes = batch(transport, i);
    for (;;) {
      const outcome = await send(bytes);
      if (outcome === "ok") break;
      refusals.push(outcome);
      await sleep(150);
    }
    acknowledged.add(`restart-${transport}-${i}`);
    await pace();
  }
}

describe("reliability: PostgreSQL restarted during OTLP ingest", () => {
  let dir: string;
  let postgres: EmbeddedPostgres;
  let opened: OpenedStorage;
  let receivers: OtlpReceivers;
  let grpc: RawGrpcClient;

  beforeAll(async () => {
    // A PostgreSQL of its own, on a fixed port so the pool finds it again after the restart;
    // the shared test server is never touched.
    dir = await mkdtemp(join(tmpdir(), "jobsight-pg-restart-"));
    postgres = new EmbeddedPostgres({ dir, port: await findFreePort() });
    const url = await postgres.start();
    opened = await openStorage({ url, poolSize: 4, statementTimeoutMs: 10_000 });
    await opened.storage.clusters.register({ id: "rst", name: "Restart", scheduler: "slurm" });
    const config = parseServerConfig({
      rateLimit: { enabled: false },
      otlp: { grpcPort: 0, httpPort: 0 },
      auth: { tokens: [{ token: TOKEN, role: "collector", user: "svc", cluster: "rst" }] },
    });
    receivers = await startOtlpReceivers({ config, storage: opened.storage });
    grpc = new RawGrpcClient(receivers.grpc.url);
  });

  afterAll(async () => {
    grpc?.close();
    await receivers?.close(1_000);
    await opened?.close();
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers retryable unavailability while it is down, recovers by itself, loses nothing acknowledged", async () => {
    const acknowledged = new Set<string>();
    const httpRefusals: Refusal[] = [];
    const grpcRefusals: Refusal[] = [];
    let restarted: Promise<void> | undefined;
    const downFor = { ms: 0 };

    const viaHttp = async (bytes: Uint8Array): Promise<"ok" | Refusal> => {
      const res = await postOtlp(receivers.http.url, bytes, {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/x-protobuf",
      });
      if (res.status === 200) return "ok";
      return { status: res.status, retryAfter: Number(res.headers.get("retry-after")) };
    };
    const viaGrpc = async (bytes: Uint8Array): Promise<"ok" | Refusal> => {
      const { error } = await grpc.export(bytes, TOKEN);
      return error ? { status: error.code, retryAfter: grpcRetryDelay(error) } : "ok";
    };
    // After a few acknowledged batches, stop PostgreSQL, keep it down a moment, start it again.
    const pace = async () => {
      if (acknowledged.size === 4 && !restarted) {
        restarted = (async () => {
          const stoppedAt = Date.now();
          await postgres.stop();
          await sleep(1_000);
          await postgres.start();
          downFor.ms = Date.now() - stoppedAt;
        })();
      }
      await sleep(20);
    };

    await Promise.all([
      sendAll(viaHttp, "http", acknowledged, httpRefusals, pace),
      sendAll(viaGrpc, "grpc", acknowledged, grpcRefusals, pace),
    ]);
    await restarted;
    expect(downFor.ms).toBeGreaterThan(1_000);

    // While it was down: only retryable answers, each with a retry delay.
    expect(httpRefusals.length).toBeGreaterThan(0);
    expect(grpcRefusals.length).toBeGreaterThan(0);
    for (const r of httpRefusals) expect(r).toEqual({ status: 503, retryAfter: 2 });
    for (const r of grpcRefusals) expect(r).toEqual({ status: GrpcStatus.UNAVAILABLE, retryAfter: 2 });

    // Every acknowledged batch is there, whole, once; the hourly summary agrees.
    const { rows } = await opened.storage.pool.query<{ job_id: string; n: number }>(
      "SELECT job_id, count(*)::int AS n FROM usage_samples WHERE cluster = 'rst' GROUP BY job_id",
    );
    expect(acknowledged.size).toBe(2 * BATCHES);
    expect(new Map(rows.map((r) => [r.job_id, r.n]))).toEqual(
      new Map([...acknowledged].map((job) => [job, PER_BATCH])),
    );
    const { rows: summary } = await opened.storage.pool.query<{ n: number }>(
      "SELECT sum(samples)::int AS n FROM job_usage_hourly WHERE cluster = 'rst'",
    );
    expect(summary[0].n).toBe(2 * BATCHES * PER_BATCH);
  }, 120_000);

  it("answers with the retry advice in the OTLP/HTTP body too", async () => {
    await postgres.stop();
    try {
      const res = await postOtlp(receivers.http.url, batch("probe", 0), {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/x-protobuf",
      });
      expect(res.status).toBe(503);
      expect(decodeStatus(res.body)).toMatchObject({ code: GrpcStatus.UNAVAILABLE, retryDelaySeconds: 2 });
      expect(decodeStatus(res.body).message).toMatch(/STORAGE_UNAVAILABLE/);
    } finally {
      await postgres.start();
    }
  }, 60_000);
});
