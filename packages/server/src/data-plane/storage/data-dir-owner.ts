import { randomBytes } from "node:crypto";
import { chmod, link, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { OWNER_ONLY_FILE } from "./owner-only-files.js";
import { isAlive } from "./postmaster-lock.js";

/** Name of the owner record in the embedded PostgreSQL's folder. */
export const OWNER_RECORD = "owner.json";

/** Who claims an embedded PostgreSQL's folder: written to its owner record, named to anyone refused. */
export type DataDirClaimant = {
  /**
   * `"server"`: runs for long and serves the API; `"command"`: a one-off job. Either starts the
   * database it needs and stops it on exit (it dies with them if they are killed).
   */
  kind: "server" | "command";
  /** How a refused process names this one, e.g. `jobsight-server import`. */
  name: string;
  /**
   * What to do instead when a running server holds the folder, as a sentence fragment built from
   * the server's record (its URL); shown to this claimant when it is refused.
   */
  instead?: (server: DataDirOwner) => string | undefined;
};

/** The owner record (`owner.json`, mode 0600): the process that holds the folder now. */
export type DataDirOwner = {
  pid: number;
  /** Boot id and start time of the process (Linux), so a reused pid is not taken for the owner. */
  process?: string;
  kind: "server" | "command";
  name: string;
  /** ISO time the claim was made. */
  startedAt: string;
  /** The server's API, once it listens. */
  url?: string;
  /** Tells this claim from a later one of the same process. */
  nonce: string;
};

/**
 * Thrown by {@link claimDataDir} when a live process holds the folder: nothing was started or
 * stopped. The message names that process (name, pid, URL, since when), the folder and what to do.
 *
 * @example
 * ```ts
 * try { await claimDataDir(dir, me); } catch (e) { if (e instanceof DataDirInUseError) console.error(e.message); }
 * ```
 */
export class DataDirInUseError extends Error {
  readonly code = "DATA_DIR_IN_USE";

  constructor(
    readonly dir: string,
    readonly owner: DataDirOwner,
    claimant: DataDirClaimant,
  ) {
    super(refusal(dir, owner, claimant));
    this.name = "DataDirInUseError";
  }
}

/** A claim on a folder, held until {@link release}. */
export type DataDirClaim = {
  readonly record: DataDirOwner;
  /** Removes the owner record if it is still this claim's. */
  release(): Promise<void>;
};

/**
 * Makes this process the one owner of `dir` (an embedded PostgreSQL's folder) by creating its
 * owner record, or throws {@link DataDirInUseError} naming the live process that holds it. A
 * record whose process is gone (killed with SIGKILL, or a pid reused after a reboot) is stale and
 * replaced, as is one of this very process (a restart in the same process). Two processes
 * replacing the same stale record at the same instant could both succeed; PostgreSQL's own lock
 * (`postmaster.pid`) still lets only one start a server.
 *
 * @example
 * ```ts
 * const claim = await claimDataDir(".jobsight/postgres", { kind: "command", name: "jobsight-server token" });
 * try { … } finally { await claim.release(); }
 * ```
 */
export async function claimDataDir(
  dir: string,
  claimant: DataDirClaimant,
  log: (message: string) => void = () => {},
): Promise<DataDirClaim> {
  const file = join(dir, OWNER_RECORD);
  const start = await processStart(process.pid);
  const record: DataDirOwner = {
    pid: process.pid,
    ...(start ? { process: start } : {}),
    kind: claimant.kind,
    name: claimant.name,
    startedAt: new Date().toISOString(),
    nonce: randomBytes(8).toString("hex"),
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createExclusive(file, record)) {
      return { record, release: () => removeIfSame(file, record.nonce) };
    }
    const held = await readOwner(file);
    if (held === undefined) continue; // removed meanwhile: try again
    if (held !== "unreadable" && held.pid !== process.pid && (await isLive(held))) {
      throw new DataDirInUseError(dir, held, claimant);
    }
    log(
      held === "unreadable"
        ? `replacing unreadable ${file}`
        : held.pid === process.pid
          ? `replacing ${file} of an earlier start in this process`
          : `replacing stale ${file}: ${held.name} (pid ${held.pid}) is no longer running`,
    );
    await removeIfSame(file, held === "unreadable" ? undefined : held.nonce);
  }
  throw new Error(`could not claim ${dir}: ${file} kept changing`);
}

/**
 * Adds the server's API URL to the owner record of `dir` if this process holds it, so that a
 * refused command can name where the server answers. Resolves to whether it did.
 *
 * @example
 * ```ts
 * await announceOwnerUrl(join(config.dataDir, "postgres"), await app.listen({ port: 8080 }));
 * ```
 */
export async function announceOwnerUrl(dir: string, url: string): Promise<boolean> {
  const file = join(dir, OWNER_RECORD);
  const held = await readOwner(file);
  if (held === undefined || held === "unreadable" || held.pid !== process.pid) return false;
  const tmp = `${file}.${held.nonce}.tmp`;
  await writeFile(tmp, `${JSON.stringify({ ...held, url })}\n`, { mode: OWNER_ONLY_FILE });
  await chmod(tmp, OWNER_ONLY_FILE);
  await rename(tmp, file);
  return true;
}

function refusal(dir: string, owner: DataDirOwner, claimant: DataDirClaimant): string {
  const where = owner.url ? `serving ${owner.url}` : owner.kind === "server" ? "not listening yet" : "";
  const holder = `${owner.name} (pid ${owner.pid}${where ? `, ${where}` : ""}, since ${owner.startedAt})`;
  const stop = `kill -TERM ${owner.pid}`;
  const head = `${claimant.name}: the embedded PostgreSQL in ${dir} belongs to ${holder}`;
  if (owner.kind === "command") {
    const then = claimant.kind === "server" ? "then start the server" : "then run this command";
    return `${head}; nothing was started or stopped. Wait for it to finish (or stop it: ${stop}), ${then} again.`;
  }
  if (claimant.kind === "server") {
    return `${head}, which is running; nothing was started or stopped. Stop it (${stop}) before starting another server on this data directory, or give this one another --data-dir.`;
  }
  const instead = claimant.instead?.(owner);
  return (
    `${head}, which is running. A command never starts or stops a database a running server owns, so nothing was done.\n` +
    `${instead ? `Instead, ${instead}; or stop` : "Instead, stop"} that server (${stop}), run this command, then start the server again.`
  );
}

/** Creates `file` holding `record`, complete, only if it does not exist (hard link of a written file). */
async function createExclusive(file: string, record: DataDirOwner): Promise<boolean> {
  const tmp = `${file}.${record.nonce}.tmp`;
  await writeFile(tmp, `${JSON.stringify(record)}\n`, { mode: OWNER_ONLY_FILE });
  await chmod(tmp, OWNER_ONLY_FILE); // explicit: the umask filters the mode given at creation
  try {
    await link(tmp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await rm(tmp, { force: true });
  }
}

async function readOwner(file: string): Promise<DataDirOwner | "unreadable" | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const record = JSON.parse(text) as DataDirOwner;
    return Number.isInteger(record.pid) && record.pid > 0 ? record : "unreadable";
  } catch {
    return "unreadable";
  }
}

/** Removes `file` if it still holds the record with `nonce` (any unreadable one when undefined). */
async function removeIfSame(file: string, nonce: string | undefined): Promise<void> {
  const now = await readOwner(file);
  if (now === undefined) return;
  if (nonce === undefined ? now === "unreadable" : now !== "unreadable" && now.nonce === nonce) {
    await rm(file, { force: true });
  }
}

async function isLive(owner: DataDirOwner): Promise<boolean> {
  if (!isAlive(owner.pid)) return false;
  if (owner.process === undefined) return true;
  const now = await processStart(owner.pid);
  return now === undefined ? isAlive(owner.pid) : now === owner.process;
}

/** Boot id and start time (clock ticks after boot) of `pid`, from `/proc`; undefined without it. */
async function processStart(pid: number): Promise<string | undefined> {
  try {
    const [stat, boot] = await Promise.all([
      readFile(`/proc/${pid}/stat`, "utf8"),
      readFile("/proc/sys/kernel/random/boot_id", "utf8"),
    ]);
    // Fields after the command name, which may hold spaces and parentheses: state is field 3, starttime 22.
    const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return startTime ? `${boot.trim()}/${startTime}` : undefined;
  } catch {
    return undefined;
  }
}
