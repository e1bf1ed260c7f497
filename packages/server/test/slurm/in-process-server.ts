import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.js";
import { parseServerConfig } from "../../src/config/parse-config.js";
import { IngestGate } from "../../src/data-plane/ingest-gate.js";
import { LocalObjectStore } from "../../src/data-plane/objects/local-object-store.js";
import { type OtlpReceivers, startOtlpReceivers } from "../../src/data-plane/otlp/otlp-receivers.js";
import { intelligenceHandlers } from "../../src/http/routes/intelligence/intelligence-handlers.js";
import { IntelligenceService } from "../../src/intelligence/intelligence-service.js";
import { openTestStorage, type StorageFixture } from "../integration/storage-fixture.js";

/** Options of {@link startInProcessServer}. */
export type InProcessServerOptions = {
  /** Database and folder name prefix. */
  prefix: string;
  /** The cluster the collector token is bound to (registered through the REST API by the caller). */
  cluster: string;
  /** Bearer token of the platform role. */
  platformToken: string;
  /** Bearer token of the collector role, bound to `cluster`. */
  collectorToken: string;
};

/** The data plane and intelligence plane, listening on loopback. */
export type InProcessServer = {
  app: FastifyInstance;
  service: IntelligenceService;
  otlp: OtlpReceivers;
  /** Base URL of the REST API, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** OTLP/gRPC endpoint, e.g. `http://127.0.0.1:40124`. */
  otlpGrpcUrl: string;
  close(): Promise<void>;
};

/**
 * Starts the server as `jobsight-server serve` wires it (one ingest gate shared by REST and OTLP,
 * the OTLP receivers beside the REST API, the intelligence plane) over a fresh migrated database,
 * with the production defaults except: predictions live (not 30 days of shadow), no background
 * training, and a quick refresh of the job history so just-ingested jobs are seen.
 *
 * @example
 * const server = await startInProcessServer({ prefix: "e2e", cluster: "c1", platformToken, collectorToken });
 * await fetch(`${server.url}/healthz`);
 * await server.close();
 */
export async function startInProcessServer(options: InProcessServerOptions): Promise<InProcessServer> {
  const storage: StorageFixture = await openTestStorage(options.prefix);
  const objectsDir = await mkdtemp(join(tmpdir(), `jobsight-${options.prefix}-`));
  const objects = new LocalObjectStore({ dir: objectsDir });
  const config = parseServerConfig({
    objectStore: { dir: objectsDir },
    http: { host: "127.0.0.1", port: 0, logLevel: "silent" },
    otlp: { host: "127.0.0.1", grpcPort: 0, httpPort: 0 },
    rateLimit: { enabled: false },
    auth: {
      tokens: [
        { token: options.platformToken, role: "platform", user: "ops" },
        {
          token: options.collectorToken,
          role: "collector",
          user: "svc-collector",
          cluster: options.cluster,
        },
      ],
    },
  });
  const service = new IntelligenceService({
    storage: storage.storage,
    objectStore: objects,
    mode: "live",
    trainOnStart: false,
    retrainIntervalMs: 0,
    refreshIntervalMs: 500,
  });
  const ingestGate = new IngestGate(config.ingest.maxConcurrentBatches);
  const app = await buildApp({
    config,
    storage: storage.storage,
    objectStore: objects,
    ingestGate,
    handlers: (deps) => intelligenceHandlers(deps, service),
  });
  let otlp: OtlpReceivers | undefined;
  let url: string;
  try {
    otlp = await startOtlpReceivers({ config, storage: app.storage, ingestGate, log: app.log });
    url = await app.listen({ host: config.http.host, port: config.http.port });
    await service.start();
  } catch (error) {
    await otlp?.close(0);
    await service.stop().catch(() => {});
    await app.close();
    await objects.close();
    await storage.dispose();
    await rm(objectsDir, { recursive: true, force: true });
    throw error;
  }
  return {
    app,
    service,
    otlp,
    url,
    otlpGrpcUrl: otlp.grpc.url,
    async close() {
      await service.stop().catch(() => {});
      await otlp.close(2_000).catch(() => {});
      await app.close();
      await objects.close();
      await storage.dispose();
      await rm(objectsDir, { recursive: true, force: true });
    },
  };
}
