import { readFile, readlink, realpath, rm } from "node:fs/promises";
import { join } from "node:path";

/** A PostgreSQL found running on a data folder: its postmaster's pid and port. */
export type RunningPostmaster = { pid: number; port: number };

/**
 * The PostgreSQL that `postmaster.pid` says runs on `dataDir`, if it does (left by an older
 * version, or by a server killed together with the guard that stops it). A lock whose pid is alive but is not a PostgreSQL on this folder (the pid was
 * reused after a reboot) is removed, since PostgreSQL would refuse to start on it; a dead pid's
 * lock, and one that cannot be read, are left to PostgreSQL, which clears or explains them.
 *
 * @example
 * ```ts
 * const running = await findRunningPostmaster("/var/lib/jobsight/postgres/data", console.log);
 * if (running) console.log(`left running on port ${running.port}`);
 * ```
 */
export async function findRunningPostmaster(
  dataDir: string,
  log: (message: string) => void,
): Promise<RunningPostmaster | undefined> {
  const lockFile = join(dataDir, "postmaster.pid");
  let lines: string[];
  try {
    lines = (await readFile(lockFile, "utf8")).split("\n");
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!(Number.isInteger(pid) && pid > 0) || !isAlive(pid)) return undefined;
  if ((await runsInFolder(pid, dataDir)) === false) {
    log(`removing stale ${lockFile}: pid ${pid} is not a PostgreSQL on this folder`);
    await rm(lockFile, { force: true });
    return undefined;
  }
  // A lock still being written has no port yet: PostgreSQL will say another server is starting.
  return Number.isInteger(port) && port > 0 ? { pid, port } : undefined;
}

/** Whether process `pid` exists (EPERM: it does, as another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether process `pid` runs in `folder` (a postmaster's working folder is its data folder), from
 * `/proc`; `undefined` where there is no `/proc` to ask.
 */
async function runsInFolder(pid: number, folder: string): Promise<boolean | undefined> {
  try {
    return (await readlink(`/proc/${pid}/cwd`)) === (await realpath(folder));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Another user's process: ours runs as this user or, from root, as the postgres user.
    if (code === "EACCES" || code === "EPERM") return false;
    if (code !== "ENOENT") throw error;
    const hasProc = await readlink("/proc/self/cwd").then(
      () => true,
      () => false,
    );
    return hasProc ? false : undefined;
  }
}
