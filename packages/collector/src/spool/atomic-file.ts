import { open } from "node:fs/promises";
import { dirname } from "node:path";
import { nodeSpoolFs, SPOOL_FILE_MODE, type SpoolFs } from "./spool-fs.js";

/**
 * Replace a file atomically and durably: write a temporary file (mode 0600), fsync it, rename it
 * over the target, fsync the directory. After a crash the file holds either the old or the new
 * content; a failed write (disk full) leaves the old content and removes the temporary file.
 *
 * @example
 * ```ts
 * await writeFileAtomic("/var/lib/jobsight/spool/state.json", JSON.stringify(state));
 * ```
 */
export async function writeFileAtomic(
  path: string,
  content: string | Buffer,
  fs: SpoolFs = nodeSpoolFs,
): Promise<void> {
  const tmp = `${path}.tmp`;
  const fh = await fs.open(tmp, "w", SPOOL_FILE_MODE);
  try {
    try {
      await fh.writeFile(content);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, path);
  } catch (error) {
    // A half-written temporary file would hold on to the very space that ran out.
    await fs.unlink(tmp).catch(() => {});
    throw error;
  }
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
