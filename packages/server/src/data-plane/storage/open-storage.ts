import pg from "pg";
import type { SamplePolicyOptions } from "../queries/sample-policies.js";
import type { DataDirClaimant } from "./data-dir-owner.js";
import { asStorageError } from "./database.js";
import { EmbeddedPostgres } from "./embedded-postgres.js";
import { type MigrationReport, migrate, readStorageFlavour } from "./migrator.js";
import { PostgresSupervisor, type PostgresSupervisorOptions } from "./postgres-supervisor.js";
import { createDataPlaneStorage, type DataPlaneStorage } from "./storage.js";

/** Options of {@link openStorage}. */
export type OpenStorageOptions = {
  /** PostgreSQL URL; without one an embedded server is started under `embeddedDir`. @default undefined */
  url?: string;
  /** Folder of the embedded server (used only without `url`). @default undefined */
  embeddedDir?: string;
  /** Port of the embedded server; 0 picks a free one. @default 0 */
  embeddedPort?: number;
  /** `initdb`/`postgres` folder for the embedded server. @default embedded-postgres's binaries */
  embeddedBinDir?: string;
  /**
   * Who opens the embedded server's folder: a `"command"` is refused (`DataDirInUseError`) while a
   * live server owns it, and stops only a PostgreSQL it started itself.
   * @default { kind: "server", name: "jobsight-server" }
   */
  embeddedOwner?: DataDirClaimant;
  /**
   * Restarts of the embedded server when it dies (back-off timings), or `false` to leave it dead.
   * @default {} (supervised: 0.5 s doubling to 30 s, reset after a healthy minute)
   */
  embeddedSupervision?:
    | Pick<PostgresSupervisorOptions, "initialDelayMs" | "maxDelayMs" | "healthyAfterMs">
    | false;
  /** Pool size. @default 10 */
  poolSize?: number;
  /** Per-statement timeout (ms); 0 for none. @default 60000 */
  statementTimeoutMs?: number;
  /** Apply migrations. @default true */
  migrate?: boolean;
  /** TimescaleDB use. @default "auto" */
  timescale?: "auto" | "off" | "require";
  /** Sample retention and compression. @default { retentionDays: 90, compressAfterDays: 7 } */
  policies?: SamplePolicyOptions;
  /** Progress messages. @default no-op */
  log?: (message: string) => void;
  /** Errors of idle pooled connections (PostgreSQL restarted…); they must not crash the process. @default log */
  onPoolError?: (error: Error) => void;
};

/** An open storage and how to close it. */
export type OpenedStorage = {
  storage: DataPlaneStorage;
  migrations?: MigrationReport;
  /** Closes the pool, then stops the embedded server (a command: only one it started) and gives up its folder. */
  close(): Promise<void>;
};

/**
 * Connects (or starts the embedded PostgreSQL), applies migrations under the advisory lock and
 * the sample policies, and returns the stores.
 *
 * @example
 * ```ts
 * const { storage, close } = await openStorage({ url: process.env.JOBSIGHT_DATABASE_URL });
 * try { console.log(await storage.jobs.count()); } finally { await close(); }
 * ```
 */
export async function openStorage(options: OpenStorageOptions): Promise<OpenedStorage> {
  const log = options.log ?? (() => {});
  let embedded: EmbeddedPostgres | undefined;
  let url = options.url;
  if (!url) {
    if (!options.embeddedDir) throw new TypeError("openStorage needs url or embeddedDir");
    embedded = new EmbeddedPostgres({
      dir: options.embeddedDir,
      port: options.embeddedPort,
      binDir: options.embeddedBinDir,
      owner: options.embeddedOwner,
      log,
    });
    url = await embedded.start();
  }
  const supervision = options.embeddedSupervision ?? {};
  // Same data folder and port on restart: the pool drops broken clients and reconnects by itself.
  const supervisor =
    embedded && supervision !== false
      ? new PostgresSupervisor({ ...supervision, server: embedded, log })
      : undefined;
  supervisor?.start();
  const statementTimeout = options.statementTimeoutMs ?? 60_000;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    ...(statementTimeout > 0 ? { statement_timeout: statementTimeout } : {}),
    application_name: "jobsight-server",
  });
  pool.on(
    "error",
    options.onPoolError ?? ((error) => log(`idle PostgreSQL connection failed: ${error.message}`)),
  );
  // The pool listens for errors only on idle clients. A checked-out client (a transaction in
  // progress) whose server goes away emits an 'error' event nobody hears, which would crash the
  // process; its query fails anyway and the client is discarded on release, so a listener is all
  // that is missing.
  pool.on("connect", (client) => client.on("error", () => {}));
  const close = async () => {
    // First: a deliberate stop must not look like a death to restart from.
    await supervisor?.stop();
    await pool.end().catch(() => {});
    await embedded?.stop();
  };
  try {
    let migrations: MigrationReport | undefined;
    let flavour: "plain" | "timescale";
    if (options.migrate ?? true) {
      migrations = await migrate(pool, { timescale: options.timescale, log });
      flavour = migrations.flavour;
    } else {
      const client = await pool.connect();
      try {
        flavour = (await readStorageFlavour(client)) ?? "plain";
      } finally {
        client.release();
      }
    }
    const storage = createDataPlaneStorage(
      pool,
      flavour,
      options.policies ?? { retentionDays: 90, compressAfterDays: 7 },
    );
    await storage.applyPolicies();
    return { storage, migrations, close };
  } catch (error) {
    await close();
    throw asStorageError(error);
  }
}
