import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The unprivileged OS user that runs PostgreSQL for a root process. */
export type PostgresOsUser = { name: string; uid: number; gid: number };

/**
 * Thrown before `initdb` or `postgres` run when the embedded PostgreSQL could not work: as root, the
 * unprivileged user it runs as is missing and cannot be created, or cannot enter a folder above
 * the data folder. The message names the folder and the ways out.
 *
 * @example
 * ```ts
 * try { await embedded.start(); } catch (e) { if (e instanceof EmbeddedPostgresAccessError) console.error(e.message); }
 * ```
 */
export class EmbeddedPostgresAccessError extends Error {
  readonly code = "EMBEDDED_POSTGRES_ACCESS";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EmbeddedPostgresAccessError";
  }
}

/**
 * The user PostgreSQL runs as when this process is root (PostgreSQL refuses to run as root),
 * created as a system user if missing, like embedded-postgres's `createPostgresUser`; `undefined`
 * when this process is not root and PostgreSQL simply runs as it.
 *
 * @example
 * ```ts
 * const user = await postgresOsUser("postgres"); // { name: "postgres", uid: 101, gid: 104 } as root
 * ```
 */
export async function postgresOsUser(name = "postgres"): Promise<PostgresOsUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const ids = async () => ({
    name,
    uid: Number((await run("id", ["-u", name])).stdout.trim()),
    gid: Number((await run("id", ["-g", name])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    try {
      await run("groupadd", ["--system", name]).catch(() => {});
      await run("useradd", ["--system", "--no-create-home", "-g", name, name]);
      return await ids();
    } catch (error) {
      throw new EmbeddedPostgresAccessError(
        `PostgreSQL refuses to run as root, and the unprivileged user ${name} it would run as does not exist and could not be created (${firstLine(error)}). Create it (useradd --system ${name}), run jobsight-server as an unprivileged user, or use an external PostgreSQL (postgres.url or --database-url).`,
        { cause: error },
      );
    }
  }
}

/**
 * Checks that `user` can enter every folder above `dir` (the folders we chown to it are below):
 * PostgreSQL run as that user would otherwise fail with "Permission denied" in `initdb`, which
 * names neither the folder nor the fix. The kernel answers, through `sh` run as the user, so ACLs
 * and groups count as they will for PostgreSQL.
 *
 * @example
 * ```ts
 * await assertReachableBy("/var/lib/jobsight/postgres", { name: "postgres", uid: 101, gid: 104 });
 * ```
 */
export async function assertReachableBy(dir: string, user: PostgresOsUser): Promise<void> {
  const above: string[] = [];
  for (let d = dirname(resolve(dir)); ; d = dirname(d)) {
    above.unshift(d);
    if (dirname(d) === d) break;
  }
  const script = 'for p do [ -x "$p" ] || { printf %s "$p"; exit 1; }; done';
  try {
    await run("sh", ["-c", script, "sh", ...above], { uid: user.uid, gid: user.gid, cwd: "/" });
  } catch (error) {
    const blocked = String((error as { stdout?: string }).stdout ?? "");
    if (!blocked) throw error;
    const st = await stat(blocked);
    const mode = (st.mode & 0o777).toString(8).padStart(4, "0");
    throw new EmbeddedPostgresAccessError(
      `PostgreSQL refuses to run as root, so the embedded PostgreSQL runs as the unprivileged user ${user.name} (uid ${user.uid}), which cannot enter ${blocked} (mode ${mode}, owner uid ${st.uid}) on the way to ${resolve(dir)}; nothing was initialised. Either run jobsight-server as an unprivileged user with a --data-dir it owns, choose a --data-dir whose parent folders ${user.name} can enter (e.g. under /var/lib), let it through with \`chmod o+x ${blocked}\`, or use an external PostgreSQL (postgres.url or --database-url).`,
    );
  }
}

function firstLine(error: unknown): string {
  return String((error as Error).message ?? error).split("\n")[0];
}
