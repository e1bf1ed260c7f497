import { type OpenStorageOptions, openStorage } from "../../data-plane/storage/open-storage.js";
import type { DataPlaneStorage } from "../../data-plane/storage/storage.js";
import { globalPlugin } from "./global-plugin.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The data plane's stores over PostgreSQL. */
    storage: DataPlaneStorage;
  }
}

/** Options of {@link postgresPlugin}: open a database, or use storage opened by the caller. */
export type PostgresPluginOptions =
  | {
      /** How to connect (or start the embedded server) and migrate. */
      open: OpenStorageOptions;
      /**
       * How often sample retention runs, in ms (plain PostgreSQL drops old partitions; TimescaleDB
       * runs its own policies). @default 3600000
       */
      policyIntervalMs?: number;
    }
  | {
      /** Storage opened (and closed) by the caller, e.g. shared by tests. */
      storage: DataPlaneStorage;
    };

/**
 * PostgreSQL for the app: a pool (or an embedded server under the data folder when no URL is
 * configured), migrations at start under an advisory lock, `app.storage` for the routes, and a
 * clean close (pool first, then the embedded server) when the app closes.
 *
 * @example
 * ```ts
 * await app.register(postgresPlugin, { open: { url: "postgres://…", timescale: "auto" } });
 * await app.storage.jobs.count();
 * ```
 */
export const postgresPlugin = globalPlugin<PostgresPluginOptions>(
  "jobsight-postgres",
  async (app, options) => {
    if ("storage" in options) {
      app.decorate("storage", options.storage);
      return;
    }
    const opened = await openStorage({
      ...options.open,
      log: options.open.log ?? ((message) => app.log.info(message)),
      onPoolError:
        options.open.onPoolError ??
        ((error) => app.log.warn({ err: error }, "idle PostgreSQL connection failed")),
    });
    app.decorate("storage", opened.storage);
    if (opened.migrations?.applied.length) {
      app.log.info(
        { applied: opened.migrations.applied, flavour: opened.migrations.flavour },
        "migrations applied",
      );
    }
    const timer = setInterval(() => {
      opened.storage
        .applyPolicies()
        .catch((error) => app.log.warn({ err: error }, "sample retention failed"));
    }, options.policyIntervalMs ?? 3_600_000);
    timer.unref();
    app.addHook("onClose", async () => {
      clearInterval(timer);
      await opened.close();
    });
  },
);
