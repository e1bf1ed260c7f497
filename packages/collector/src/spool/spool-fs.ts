import * as fsp from "node:fs/promises";

/**
 * The file-system calls through which the spool writes, renames and deletes (reads go straight to
 * `node:fs`). Tests pass a wrapper that fails like a full disk; `open` must return a real-looking
 * `FileHandle` (`writev`, `writeFile`, `datasync`, `sync`, `truncate`, `close`).
 */
export type SpoolFs = Pick<
  typeof fsp,
  "open" | "rename" | "unlink" | "truncate" | "mkdir" | "chmod" | "stat"
>;

/** The real file system. */
export const nodeSpoolFs: SpoolFs = fsp;

/** Mode of spool files: they hold job names, users and commands of other people's jobs. */
export const SPOOL_FILE_MODE = 0o600;
/** Mode of the spool directory and its subdirectories. */
export const SPOOL_DIR_MODE = 0o700;

/**
 * Whether an error means the disk (or the user's quota) is full: appending may work again once
 * space returns, and what was written before is intact.
 *
 * @example
 * ```ts
 * if (isDiskFull(error)) log.warn("spool disk full; retrying");
 * ```
 */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}

/** Create `dir` as 0700, or take group and other permissions off an existing one. */
export async function makePrivateDir(dir: string, fs: SpoolFs = nodeSpoolFs): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: SPOOL_DIR_MODE });
  await tighten(dir, SPOOL_DIR_MODE, fs);
}

/** Take group and other permissions off an existing file or directory (best effort: not the owner). */
export async function tighten(path: string, mode: number, fs: SpoolFs = nodeSpoolFs): Promise<void> {
  try {
    const s = await fs.stat(path);
    if ((s.mode & 0o077) !== 0) await fs.chmod(path, s.mode & 0o777 & mode);
  } catch {
    // Not ours to change (or gone): the directory's own mode still keeps others out.
  }
}

/**
 * Write all of `buffers` at `position`. A write near a full disk can be short without an error;
 * what is left is written again until it all is, or the file system reports why it cannot.
 *
 * @example
 * ```ts
 * await writeFully(fh, [frameA, frameB], seg.bytes);
 * ```
 */
export async function writeFully(fh: fsp.FileHandle, buffers: Buffer[], position: number): Promise<void> {
  let rest = buffers;
  let at = position;
  while (rest.length > 0) {
    const { bytesWritten } = await fh.writev(rest, at);
    if (bytesWritten === 0)
      throw Object.assign(new Error("ENOSPC: no space left on device, writev"), { code: "ENOSPC" });
    at += bytesWritten;
    let skip = bytesWritten;
    const next: Buffer[] = [];
    for (const b of rest) {
      if (skip >= b.length) skip -= b.length;
      else {
        next.push(skip > 0 ? b.subarray(skip) : b);
        skip = 0;
      }
    }
    rest = next;
  }
}
