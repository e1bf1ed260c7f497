import { chmod, lstat, mkdir, readdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

/** Mode of a folder holding secrets or job data: the server's user only. */
export const OWNER_ONLY_DIR = 0o700;
/** Mode of a file holding secrets or job data. */
export const OWNER_ONLY_FILE = 0o600;

/**
 * Creates `dir` and its missing parents with `mode` (0700 by default), set explicitly so the
 * process umask cannot widen or narrow it; folders that already exist are left alone.
 *
 * @example
 * ```ts
 * await makeOwnerOnlyDir("/var/lib/jobsight/objects/tmp");
 * ```
 */
export async function makeOwnerOnlyDir(dir: string, mode = OWNER_ONLY_DIR): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode });
  if (first === undefined) return;
  const top = resolve(first);
  for (let d = resolve(dir); ; d = dirname(d)) {
    await chmod(d, mode);
    if (d === top || dirname(d) === d) return;
  }
}

/**
 * Narrows `path` to `mode` when group or others hold any permission on it (left by an older
 * version or a wide umask); symbolic links and missing paths are skipped. Resolves to whether it
 * changed anything.
 *
 * @example
 * ```ts
 * await restrictMode("/var/lib/jobsight/postgres/postgres.log", OWNER_ONLY_FILE);
 * ```
 */
export async function restrictMode(path: string, mode: number): Promise<boolean> {
  const st = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (!st || st.isSymbolicLink() || (st.mode & 0o777 & ~mode) === 0) return false;
  await chmod(path, mode);
  return true;
}

/**
 * Makes a folder tree owner-only: folders 0700, files 0600. The tree is walked only when its top
 * folder is open to others (a tree made by an older version); the top is narrowed last, so a walk
 * cut short is done again at the next start.
 *
 * @example
 * ```ts
 * await restrictTree("/var/lib/jobsight/objects");
 * ```
 */
export async function restrictTree(root: string): Promise<void> {
  const st = await lstat(root).catch(() => undefined);
  if (!st?.isDirectory() || (st.mode & 0o077) === 0) return;
  await restrictBelow(root);
  await chmod(root, OWNER_ONLY_DIR);
}

async function restrictBelow(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      await restrictBelow(path);
      await restrictMode(path, OWNER_ONLY_DIR);
    } else if (entry.isFile()) {
      await restrictMode(path, OWNER_ONLY_FILE);
    }
  }
}
