import { createRequire } from "node:module";
import type { ControlPlaneConfig } from "../../config/security-config.js";
import { predictionsPerDay } from "../../data-plane/queries/deployment-counts.js";
import type { DataPlaneStorage } from "../../data-plane/storage/storage.js";
import { storageHeartbeatCounts } from "../../data-plane/stores/storage-heartbeat-counts.js";
import { SERVER_VERSION } from "../../version.js";
import { HeartbeatClient, type HeartbeatLogger, type HeartbeatSource } from "./heartbeat.js";
import type { LicenceMonitor } from "./licence-monitor.js";

const SCHEMAS_VERSION = (
  createRequire(import.meta.url)("@jobsight/schemas/package.json") as { version: string }
).version;

/** Options of {@link createServerHeartbeat}. */
export type ServerHeartbeatOptions = {
  /** The `controlPlane` configuration section; without a URL the heartbeat is off. */
  config: ControlPlaneConfig;
  /** The data plane's storage: its pool for the aggregate counts, `ping` for health. */
  storage: Pick<DataPlaneStorage, "pool" | "ping">;
  /** The licence (its id and state travel, nothing else of it). */
  licence: LicenceMonitor;
  /** Whether this replica sends (the leader of the replicas on the database); the others skip their turns. @default () => true */
  leader?: () => boolean;
  /** Logger. @default silent */
  log?: HeartbeatLogger;
  /** Milliseconds before the first heartbeat. @default 60000 */
  initialDelayMs?: number;
  /** The fetch implementation (tests). @default globalThis.fetch */
  fetch?: typeof fetch;
};

/**
 * The server's control-plane client: a {@link HeartbeatClient} whose source reads only versions,
 * storage health, the licence's id and state, and aggregate counts. Off (never sends) without
 * `controlPlane.url`. `main` starts it after listening and stops it on shutdown; it never throws
 * into the server.
 *
 * @example
 * ```ts
 * const heartbeat = createServerHeartbeat({ config: config.controlPlane, storage: app.storage, licence: app.licence, log: app.log });
 * heartbeat.start();
 * app.addHook("onClose", () => heartbeat.stop());
 * ```
 */
export function createServerHeartbeat(options: ServerHeartbeatOptions): HeartbeatClient {
  const { storage, licence } = options;
  const source: HeartbeatSource = {
    versions: () => ({ server: SERVER_VERSION, schemas: SCHEMAS_VERSION, node: process.versions.node }),
    health: async () => {
      try {
        await storage.ping();
        return "ok";
      } catch {
        return "unavailable";
      }
    },
    licence: () => {
      const status = licence.status();
      return { id: status.licence?.licenceId ?? null, status: status.state };
    },
    counts: storageHeartbeatCounts(storage.pool, {
      predictionsPerDay: () => predictionsPerDay(storage.pool),
    }),
  };
  return new HeartbeatClient(source, {
    ...(options.config.url ? { url: options.config.url } : {}),
    intervalMs: options.config.intervalSeconds * 1000,
    allowInsecureHttp: options.config.allowInsecureHttp,
    ...(options.initialDelayMs === undefined ? {} : { initialDelayMs: options.initialDelayMs }),
    ...(options.leader ? { active: options.leader } : {}),
    ...(options.log ? { logger: options.log } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
