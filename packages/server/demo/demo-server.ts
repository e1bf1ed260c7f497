import { createHash, randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../src/app.js";
import { loadServerConfig } from "../src/config/config-sources.js";
import { IngestGate } from "../src/data-plane/ingest-gate.js";
import { type OtlpReceivers, startOtlpReceivers } from "../src/data-plane/otlp/otlp-receivers.js";
import { intelligenceHandlers } from "../src/http/routes/intelligence/intelligence-handlers.js";
import { IntelligenceService } from "../src/intelligence/intelligence-service.js";

/** Options of {@link startDemoServer}. */
export type DemoServerOptions = {
  /** Folder of the embedded PostgreSQL and the objects. */
  dataDir: string;
  /** The demo's cluster (the collector token is bound to it). */
  cluster: string;
  /** HTTP port; 0 picks a free one. @default 0 */
  port?: number;
};

/** The running data plane and intelligence plane of the demo. */
export type DemoServer = {
  app: FastifyInstance;
  service: IntelligenceService;
  otlp: OtlpReceivers;
  url: string;
  otlpGrpcUrl: string;
  platformToken: string;
  collectorToken: string;
  close(): Promise<void>;
};

const newToken = (prefix: string) => `${prefix}_${randomBytes(24).toString("base64url")}`;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Starts the server in-process as `jobsight-server serve` does (one ingest gate for REST and
 * OTLP, the OTLP receivers beside the REST API), with the intelligence plane forced live so the
 * demo's predictions are visible, and two fresh tokens: a platform one and a collector one.
 *
 * @example
 * ```ts
 * const server = await startDemoServer({ dataDir: ".jobsight/demo", cluster: "demo" });
 * ```
 */
export async function startDemoServer(options: DemoServerOptions): Promise<DemoServer> {
  const platformToken = newToken("jsp");
  const collectorToken = newToken("jsc");
  const config = await loadServerConfig({
    env: {},
    overrides: {
      dataDir: options.dataDir,
      http: { host: "127.0.0.1", port: options.port ?? 0, logLevel: "error" },
      otlp: { host: "127.0.0.1", grpcPort: 0, httpPort: 0 },
      rateLimit: { enabled: false },
      auth: {
        tokens: [
          { id: "demo-platform", tokenSha256: sha256(platformToken), role: "platform", user: "demo-admin" },
          {
            id: "demo-collector",
            tokenSha256: sha256(collectorToken),
            role: "collector",
            user: "demo-collector",
            cluster: options.cluster,
          },
        ],
      },
    },
  });
  const ingestGate = new IngestGate(config.ingest.maxConcurrentBatches);
  let service: IntelligenceService | undefined;
  const app = await buildApp({
    config,
    ingestGate,
    handlers: (deps) => {
      service = new IntelligenceService({
        storage: deps.storage,
        objectStore: deps.objectStore,
        // The app is still being built here: its logger is looked up when a line is written.
        log: {
          info: (o, m) => app.log.info(o, m),
          warn: (o, m) => app.log.warn(o, m),
          error: (o, m) => app.log.error(o, m),
        },
        mode: "live",
        trainOnStart: false,
        // In the worker bundled beside the demo (dist/demo/training-worker.js): the report keeps
        // answering and Ctrl-C is heard while the model trains.
        trainIn: "worker",
        retrainIntervalMs: 0,
        // The demo refreshes by hand once its data is in: that first refresh reads every ended job
        // in end order, as training replays them. A timed refresh between its steps would add the
        // imported 1994 history after the demo's own jobs, and the predictions would then depend
        // on when it happened to run.
        refreshIntervalMs: 3_600_000,
      });
      return intelligenceHandlers(deps, service);
    },
  });
  const intelligence = service!;
  let otlp: OtlpReceivers;
  try {
    otlp = await startOtlpReceivers({
      config,
      storage: app.storage,
      ingestGate,
      log: app.log.child({ component: "otlp" }),
    });
  } catch (error) {
    await app.close();
    throw error;
  }
  const url = await app.listen({ host: config.http.host, port: config.http.port });
  await intelligence.start();
  return {
    app,
    service: intelligence,
    otlp,
    url,
    otlpGrpcUrl: otlp.grpc.url,
    platformToken,
    collectorToken,
    async close() {
      await intelligence.stop().catch(() => {});
      await otlp.close(5_000).catch(() => {});
      await app.close();
    },
  };
}
