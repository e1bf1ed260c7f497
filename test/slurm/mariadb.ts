import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { poll } from "./poll.js";
import { runCommand } from "./run-command.js";
import { SlurmTestError } from "./slurm-test-error.js";

/** Where the throw-away MariaDB lives and how it is reached. */
export type MariaDbOptions = {
  dataDir: string;
  port: number;
  socket: string;
  pidFile: string;
  logFile: string;
  /** Where the start-up SQL (database and `slurm` user) is written. */
  initFile: string;
  env: NodeJS.ProcessEnv;
};

/** Connection details of the started MariaDB, as slurmdbd and tests use them. */
export type MariaDbInfo = {
  host: string;
  port: number;
  socket: string;
  user: string;
  password: string;
  database: string;
};

// What mariadb-install-db feeds `mariadbd --bootstrap`, minus the help tables, GIS procedures and
// sys schema that slurmdbd never reads: 3 s instead of 7-9 s here (the script forks a lot).
const SYSTEM_SQL_DIR = "/usr/share/mysql";
const SYSTEM_SQL = [
  "mysql_system_tables.sql",
  "mysql_performance_tables.sql",
  "mysql_system_tables_data.sql",
];

// Durability buys nothing for a database deleted at the end of the run.
const SPEED_FLAGS = [
  "--skip-log-bin",
  "--skip-name-resolve",
  "--innodb-flush-log-at-trx-commit=0",
  "--innodb-doublewrite=0",
  "--innodb-buffer-pool-size=128M",
  "--innodb-log-file-size=16M",
  "--innodb-lock-wait-timeout=900",
  "--performance-schema=OFF",
];

/**
 * Initialises a data directory (the system tables, through `mariadbd --bootstrap`) and starts MariaDB as root (`--user=root`, everything under the
 * run's temp folder) on 127.0.0.1, with a `slurm` user owning the accounting database.
 * `--no-defaults` keeps the machine's /etc/mysql configuration out of it.
 *
 * @example
 * const db = await startMariaDb({ dataDir, port, socket, pidFile, logFile, initFile, env });
 */
export async function startMariaDb(options: MariaDbOptions): Promise<MariaDbInfo> {
  const { dataDir, port, socket, pidFile, logFile, initFile, env } = options;
  const info: MariaDbInfo = {
    host: "127.0.0.1",
    port,
    socket,
    user: "slurm",
    password: randomBytes(12).toString("hex"),
    database: "slurm_acct_db",
  };
  await initialiseDataDir(dataDir, env);
  await writeFile(
    initFile,
    [
      `CREATE DATABASE IF NOT EXISTS ${info.database};`,
      `CREATE USER IF NOT EXISTS '${info.user}'@'127.0.0.1' IDENTIFIED BY '${info.password}';`,
      `GRANT ALL ON ${info.database}.* TO '${info.user}'@'127.0.0.1';`,
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  // mariadbd stays in the foreground; detached so a Ctrl-C in the terminal reaches the harness
  // (which stops it in order) rather than killing the database under slurmdbd.
  const child = spawn(
    "mariadbd",
    [
      "--no-defaults",
      `--datadir=${dataDir}`,
      "--user=root",
      "--bind-address=127.0.0.1",
      `--port=${port}`,
      `--socket=${socket}`,
      `--pid-file=${pidFile}`,
      `--log-error=${logFile}`,
      `--init-file=${initFile}`,
      ...SPEED_FLAGS,
    ],
    { env, detached: true, stdio: "ignore" },
  );
  let exited: string | undefined;
  child.on("error", (error) => (exited = error.message));
  child.on("exit", (code, signal) => (exited = signal ? `killed by ${signal}` : `exit code ${code}`));
  child.unref();

  // Ready once the slurm user can log in over TCP, exactly as slurmdbd will.
  await poll(
    async () => {
      if (exited)
        throw new SlurmTestError("SLURM_START_FAILED", `mariadbd stopped (${exited}); see ${logFile}`);
      await runCommand(
        "mariadb",
        [
          "--no-defaults",
          "--protocol=TCP",
          `--host=${info.host}`,
          `--port=${port}`,
          `--user=${info.user}`,
          `--password=${info.password}`,
          "--execute=SELECT 1",
          info.database,
        ],
        { env, timeoutMs: 5_000 },
      );
      return true;
    },
    { what: `MariaDB on 127.0.0.1:${port}`, timeoutMs: 60_000, intervalMs: 100 },
  );
  return info;
}

async function initialiseDataDir(dataDir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const files = SYSTEM_SQL.map((file) => join(SYSTEM_SQL_DIR, file));
  if (!files.every((file) => existsSync(file))) {
    await runCommand(
      "mariadb-install-db",
      [
        "--no-defaults",
        `--datadir=${dataDir}`,
        "--user=root",
        "--auth-root-authentication-method=socket",
        "--skip-test-db",
      ],
      { env, timeoutMs: 120_000 },
    );
    return;
  }
  await mkdir(dataDir, { recursive: true });
  const sql = [
    "create database if not exists mysql;",
    "use mysql;",
    // root logs in through the unix socket only, as mariadb-install-db --auth-root-authentication-method=socket does.
    "SET @auth_root_socket='root';",
    ...(await Promise.all(files.map((file) => readFile(file, "utf8")))),
  ].join("\n");
  await runCommand(
    "mariadbd",
    [
      "--no-defaults",
      "--bootstrap",
      `--datadir=${dataDir}`,
      "--user=root",
      "--log-warnings=0",
      "--enforce-storage-engine=",
      "--max-allowed-packet=8M",
      "--net-buffer-length=16K",
      ...SPEED_FLAGS,
    ],
    { env, input: sql, timeoutMs: 120_000 },
  );
}
