import { open, rename } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Replace a file atomically and durably: write a temporary file, fsync it, rename it over the
 * target, fsync the directory. After a crash the file holds either the old or the new content.
 *
 * @example
 * ```ts
 * await writeFileAtomic("/var/lib/jobsight/spool/state.json", JSON.stringify(state));
 * ```
 */
export async function writeFileAtomic(path: string, content: string | Buffer): Promise<void> {
  const tmp = `${path}.tmp`;
  const fh = await open(tmp, "w");
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
  await syncDirectory(dirname(path));
}

/** fsync a directory so a rename or unlink in it survives a crash (best effort where unsupported). */
export async function syncDirectory(dir: string): Promise<void> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(dir, "r");
    await fh.sync();
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic there.
  } finally {
    await fh?.close();
  }
}
