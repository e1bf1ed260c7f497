import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "../../../../test/services/index.js";
import { buildApp } from "../../../server/src/app.js";
import { parseServerConfig } from "../../../server/src/config/parse-config.js";
import { LocalObjectStore } from "../../../server/src/data-plane/objects/local-object-store.js";
import { openStorage } from "../../../server/src/data-plane/storage/open-storage.js";
import type { DataPlaneStorage } from "../../../server/src/data-plane/storage/storage.js";
import { intelligenceHandlers } from "../../../server/src/http/routes/intelligence/intelligence-handlers.js";
import { IntelligenceService } from "../../../server/src/intelligence/intelligence-service.js";

/** API tokens of the real server, by who holds them. */
export const E2E_TOKENS = {
  alice: "e2e-researcher-alice-token-0001",
  bob: "e2e-researcher-bob-token-000001",
  collector: "e2e-collector-hpc1-token-00001",
  platform: "e2e-platform-site-token-000001",
  scheduler: "e2e-scheduler-k8s1-token-00001",
} as const;

/** Options of {@link startRealServer}. */
export type RealServerOptions = {
  /** Database name prefix (each call gets its own database). */
  prefix: string;
  /**
   * Serve the intelligence plane (predictions, accuracy, policy, diagnosis) as `main` does; without
   * it those routes answer 501, as a data-plane-only deployment does.
   * @default true
   */
  intelligence?: boolean;
};

/** The fastify app `buildApp` returns (fastify itself is the server's dependency, not the SDK's). */
type JobsightApp = Awaited<ReturnType<typeof buildApp>>;

/** A Jobsight server listening on 127.0.0.1 on a free port, over its own fresh database. */
export type RealServer = {
  url: string;
  app: JobsightApp;
  storage: DataPlaneStorage;
  /** The intelligence plane behind the routes (for training on demand), when served. */
  service?: IntelligenceService;
  close(): Promise<void>;
};

/**
 * Starts the real server (`buildApp` over real PostgreSQL and a local object folder) with API
 * tokens for a researcher pair, a collector of `hpc1`, a platform engineer and a workflow engine
 * (scheduler role) on the Kubernetes cluster `k8s1`. The intelligence
 * plane runs live (no shadow period), trains only on demand and inline, with small fast trees.
 *
 * @example
 * ```ts
 * const server = await startRealServer({ prefix: "e2e" });
 * const client = createClient({ baseUrl: server.url, token: E2E_TOKENS.alice });
 * ```
 */
export async function startRealServer(options: RealServerOptions): Promise<RealServer> {
  const db = await createTestDatabase(options.prefix);
  const opened = await openStorage({ url: db.url, poolSize: 6 });
  const objectsDir = await mkdtemp(join(tmpdir(), `jobsight-${options.prefix}-`));
  const objects = new LocalObjectStore({ dir: objectsDir });
  const service =
    options.intelligence === false
      ? undefined
      : new IntelligenceService({
          storage: opened.storage,
          objectStore: objects,
          mode: "live",
          trainOnStart: false,
          trainIn: "inline",
          retrainIntervalMs: 0,
          refreshIntervalMs: 3_600_000,
          minJobsPerResource: 60,
          holdoutShare: 0.2,
          minComparisonJobs: 10,
          training: { trees: 20, maxDepth: 4 },
        });
  await service?.start();
  const config = parseServerConfig({
    objectStore: { dir: objectsDir },
    rateLimit: { enabled: false },
    http: { logLevel: "silent" },
    auth: {
      tokens: [
        { token: E2E_TOKENS.alice, role: "researcher", user: "alice" },
        { token: E2E_TOKENS.bob, role: "researcher", user: "bob" },
        { token: E2E_TOKENS.collector, role: "collector", user: "svc-collector", cluster: "hpc1" },
        { token: E2E_TOKENS.platform, role: "platform", user: "ops" },
        { token: E2E_TOKENS.scheduler, role: "scheduler", user: "argo", cluster: "k8s1" },
      ],
    },
  });
  const app = await buildApp({
    config,
    storage: opened.storage,
    objectStore: objects,
    handlers: service ? (deps) => intelligenceHandlers(deps, service) : undefined,
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    url,
    app,
    storage: opened.storage,
    service,
    close: async () => {
      await app.close();
      await service?.stop();
      await objects.close();
      await opened.close();
      await db.drop();
      await rm(objectsDir, { recursive: true, force: true });
    },
  };
}
