import type { UsageSample } from "@jobsight/schemas";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import type { IngestGate } from "../../../src/data-plane/ingest-gate.js";
import type { OtlpExportObserver } from "../../../src/data-plane/otlp/otlp-ingest.js";
import { type OtlpReceivers, startOtlpReceivers } from "../../../src/data-plane/otlp/otlp-receivers.js";
import { openTestStorage, type StorageFixture } from "../storage-fixture.js";

/** Tokens of the OTLP tests: a collector of each cluster, and a non-collector. */
export const TOKENS = {
  hpc1: "collector-otlp-hpc1-token-0001",
  hpc2: "collector-otlp-hpc2-token-0001",
  unregistered: "collector-otlp-hpc9-token-0001",
  platform: "platform-otlp-token-000000001",
} as const;

/** Real receivers (gRPC and HTTP on 127.0.0.1, free ports) over a fresh migrated database. */
export type OtlpFixture = {
  storage: StorageFixture;
  receivers: OtlpReceivers;
  /** Rows in usage_samples. */
  rowCount(): Promise<number>;
  close(): Promise<void>;
};

/**
 * Starts the OTLP receivers as `serve` would (same config parsing, tokens, cluster registry),
 * with clusters hpc1 and hpc2 registered and hpc9 not.
 *
 * @example
 * ```ts
 * const fx = await startOtlpFixture("otlp-exporters");
 * // new OTLPMetricExporter({ url: fx.receivers.grpc.url, metadata }) …
 * await fx.close();
 * ```
 */
export async function startOtlpFixture(
  prefix: string,
  overrides: { maxMessageBytes?: number; ingestGate?: IngestGate; metrics?: OtlpExportObserver } = {},
): Promise<OtlpFixture> {
  const storage = await openTestStorage(prefix);
  const config = parseServerConfig({
    rateLimit: { enabled: false },
    otlp: { grpcPort: 0, httpPort: 0, maxMessageBytes: overrides.maxMessageBytes ?? 20 * 1024 * 1024 },
    auth: {
      tokens: [
        { token: TOKENS.hpc1, role: "collector", user: "svc", cluster: "hpc1" },
        { token: TOKENS.hpc2, role: "collector", user: "svc", cluster: "hpc2" },
        { token: TOKENS.unregistered, role: "collector", user: "svc", cluster: "hpc9" },
        { token: TOKENS.platform, role: "platform", user: "ops" },
      ],
    },
  });
  for (const id of ["hpc1", "hpc2"]) {
    await storage.storage.clusters.register({ id, name: id.toUpperCase(), scheduler: "slurm" });
  }
  const receivers = await startOtlpReceivers({
    config,
    storage: storage.storage,
    ...(overrides.ingestGate ? { ingestGate: overrides.ingestGate } : {}),
    ...(overrides.metrics ? { metrics: overrides.metrics } : {}),
  });
  return {
    storage,
    receivers,
    rowCount: async () =>
      (await storage.storage.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_samples"))
        .rows[0].n,
    close: async () => {
      await receivers.close(1_000);
      await storage.dispose();
    },
  };
}

/**
 * `count` samples of one job on `cluster`, one per second from 2026-12-01T10:00Z, using every
 * section of the UsageSample schema so a lost field shows.
 */
export function richSamples(cluster: string, jobId: string, count: number, node = "gpu07"): UsageSample[] {
  const out: UsageSample[] = [];
  for (let i = 0; i < count; i++) {
    const memory = 1_000_000 + i * 4096;
    out.push({
      cluster,
      jobId,
      node,
      ...(i % 2 === 0 ? {} : { step: "0" }),
      time: new Date(Date.UTC(2026, 11, 1, 10) + i * 1000).toISOString(),
      user: "alice",
      memory: {
        currentBytes: memory,
        peakBytes: memory + 10,
        limitBytes: 68_719_476_736,
        anonBytes: memory - 100,
        fileBytes: 100,
        shmemBytes: 0,
        swapBytes: 0,
        oomEvents: i,
        oomKillEvents: 0,
      },
      cpu: {
        usageSeconds: i * 1.5,
        userSeconds: i,
        systemSeconds: i * 0.5,
        periods: i * 10,
        throttledPeriods: i,
        throttledSeconds: i * 0.25,
        limitCores: 8,
      },
      io: { readBytes: i * 512, writeBytes: i * 256, readOps: i, writeOps: i },
      pids: 3 + (i % 5),
      pressure: { cpuSome: 12.5, memorySome: 0.25, ioSome: 50, ioFull: 25 },
      gpus: [
        {
          index: 0,
          uuid: "GPU-5f3c0d1e-aaaa-bbbb-cccc-0123456789ab",
          utilizationPercent: (i * 7) % 100,
          memoryUsedBytes: 1_000_000 + i,
          memoryTotalBytes: 85_899_345_920,
          powerWatts: 250.5,
          temperatureCelsius: 70,
        },
      ],
      processes: [{ pid: 1234, command: "python", rssBytes: memory - 1000, state: "R" }],
      ...(i === count - 1 ? { final: true as const } : {}),
    });
  }
  return out;
}
