import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, chown, mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { findFreePort } from "./free-port.js";
import type { RunningService } from "./running-service.js";
import { TestServicesError } from "./test-services-error.js";
import {
  ensureTimescaleInstalled,
  POSTGRES_15_BIN,
  TIMESCALEDB_VERSION,
  timescaledbFolder,
} from "./timescale-install.js";
import type { PostgresServiceInfo } from "./types.js";

const run = promisify(execFile);
const USER = "postgres";
const START_ATTEMPTS = 3;
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

/** Options of {@link startTimescaleServer}. */
export type TimescaleServerOptions = {
  /** Folder holding TimescaleDB's tarball. @default `timescaledbFolder()` (`JOBSIGHT_TIMESCALEDB_DIR` or `../shared/timescaledb`) */
  timescaledbDir?: string;
  /**
   * Extra `postgres -c` settings, after the defaults (durability off, telemetry off, 200
   * connections, room for a TimescaleDB scheduler per test database).
   * @default {}
   */
  settings?: Record<string, string>;
};

// Durability buys nothing for a throw-away cluster. Each database with the extension takes a
// background worker for its job scheduler, and the tests make many databases.
const DEFAULT_SETTINGS: Record<string, string> = {
  listen_addresses: "127.0.0.1",
  shared_preload_libraries: "timescaledb",
  "timescaledb.telemetry_level": "off",
  fsync: "off",
  synchronous_commit: "off",
  full_page_writes: "off",
  max_connections: "200",
  max_worker_processes: "40",
  "timescaledb.max_background_workers": "32",
};

/**
 * Installs (when missing) and starts a throw-away TimescaleDB server: Debian's PostgreSQL 15 with
 * TimescaleDB 2.28.3 preloaded and its telemetry off, a fresh `initdb` in a temp folder, 127.0.0.1
 * and a free port, run as the unprivileged `postgres` user when we are root (PostgreSQL refuses
 * root). Stopping it (fast shutdown) deletes the folder.
 *
 * @throws {TestServicesError} `TIMESCALE_INSTALL_FAILED` or `TIMESCALE_START_FAILED`, with the reason.
 * @example
 * const ts = await startTimescaleServer();
 * try { console.log(ts.info.url); } finally { await ts.stop(); }
 */
export async function startTimescaleServer(
  options: TimescaleServerOptions = {},
): Promise<RunningService<PostgresServiceInfo>> {
  await ensureTimescaleInstalled(options.timescaledbDir ?? timescaledbFolder());
  const ids = await postgresIds();
  const root = await mkdtemp(join(tmpdir(), "jobsight-timescale-"));
  // mkdtemp gives 0700 to root; the postgres user must be able to reach its folders inside.
  await chmod(root, 0o755);
  if (ids) await chown(root, ids.uid, ids.gid);
  const removeRoot = () => rm(root, { recursive: true, force: true });
  const password = randomBytes(12).toString("hex");
  const dataDir = join(root, "data");
  const logPath = join(root, "postgres.log");
  try {
    await initdb(root, dataDir, password, ids);
  } catch (cause) {
    await removeRoot();
    throw new TestServicesError("TIMESCALE_START_FAILED", `initdb failed: ${errorText(cause)}`, { cause });
  }
  const settings = { ...DEFAULT_SETTINGS, unix_socket_directories: root, ...options.settings };

  // The port is picked before postgres binds it, so another process can win the race: retry.
  for (let attempt = 1; ; attempt++) {
    const port = await findFreePort();
    const child = await spawnPostgres(dataDir, logPath, port, settings, ids);
    const url = `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`;
    try {
      await waitReady(url, child);
      await checkTimescale(url);
    } catch (cause) {
      await stopChild(child);
      const log = await readFile(logPath, "utf8").catch(() => "");
      if (attempt < START_ATTEMPTS && /could not bind|already in use/i.test(log)) continue;
      await removeRoot();
      throw new TestServicesError(
        "TIMESCALE_START_FAILED",
        `TimescaleDB server did not start: ${errorText(cause)}\n${log.slice(-3_000)}`,
        { cause },
      );
    }
    // A test run killed without teardown must not leave the server behind.
    const onExit = () => child.kill("SIGQUIT");
    process.once("exit", onExit);
    return {
      info: { url, host: "127.0.0.1", port, user: USER, password, embedded: true },
      stop: async () => {
        process.off("exit", onExit);
        try {
          await stopChild(child);
        } finally {
          await removeRoot();
        }
      },
    };
  }
}

/** The `postgres` user's ids when we are root; undefined when PostgreSQL can run as us. */
async function postgresIds(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number((await run("id", ["-u", USER])).stdout.trim());
    const gid = Number((await run("id", ["-g", USER])).stdout.trim());
    return { uid, gid };
  } catch (cause) {
    throw new TestServicesError(
      "TIMESCALE_START_FAILED",
      `PostgreSQL refuses to run as root and the "${USER}" user (made by the postgresql-15 package) is missing`,
      { cause },
    );
  }
}

async function initdb(
  root: string,
  dataDir: string,
  password: string,
  ids: { uid: number; gid: number } | undefined,
): Promise<void> {
  const pwfile = join(root, "initdb-password");
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (ids) await chown(pwfile, ids.uid, ids.gid);
  try {
    await run(
      join(POSTGRES_15_BIN, "initdb"),
      [
        `--pgdata=${dataDir}`,
        `--username=${USER}`,
        `--pwfile=${pwfile}`,
        "--auth=scram-sha-256",
        "--encoding=UTF8",
        "--locale=C",
        "--no-sync",
        "--no-instructions",
      ],
      { ...(ids ?? {}), cwd: root, env: { ...process.env, LC_ALL: "C" } },
    );
  } finally {
    await rm(pwfile, { force: true });
  }
}

async function spawnPostgres(
  dataDir: string,
  logPath: string,
  port: number,
  settings: Record<string, string>,
  ids: { uid: number; gid: number } | undefined,
): Promise<ChildProcess> {
  const log = await open(logPath, "a", 0o600);
  if (ids) await log.chown(ids.uid, ids.gid);
  try {
    const args = ["-D", dataDir, "-p", String(port)];
    for (const [name, value] of Object.entries(settings)) args.push("-c", `${name}=${value}`);
    const child = spawn(join(POSTGRES_15_BIN, "postgres"), args, {
      ...(ids ?? {}),
      cwd: dataDir,
      stdio: ["ignore", log.fd, log.fd],
      env: { ...process.env, LC_ALL: "C" },
    });
    child.on("error", () => {});
    child.unref();
    return child;
  } finally {
    await log.close();
  }
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`postgres exited (code ${child.exitCode}, signal ${child.signalCode})`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Refuses a server where the extension is not the expected release or not preloaded. */
async function checkTimescale(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string | null; preload: string }>(
      `SELECT (SELECT default_version FROM pg_available_extensions WHERE name = 'timescaledb') AS version,
        current_setting('shared_preload_libraries') AS preload`,
    );
    const { version, preload } = rows[0];
    if (version !== TIMESCALEDB_VERSION) {
      throw new Error(`timescaledb ${TIMESCALEDB_VERSION} expected, the server offers ${version ?? "none"}`);
    }
    if (!preload.split(",").some((name) => name.trim() === "timescaledb")) {
      throw new Error(`timescaledb is not in shared_preload_libraries (${preload})`);
    }
  } finally {
    await client.end();
  }
}

/** Fast shutdown (SIGINT), then immediate (SIGQUIT) if it takes too long. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGQUIT"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

function errorText(error: unknown): string {
  const e = error as { message?: string; stderr?: string };
  return [e.message, e.stderr].filter(Boolean).join("\n") || String(error);
}
