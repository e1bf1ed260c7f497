import type { Logger } from "../log/logger.js";
import { syncDirectory } from "./atomic-file.js";
import type { SpoolFs } from "./spool-fs.js";

/**
 * Deletes acknowledged segment files. A deletion that fails (a full copy-on-write file system, a
 * busy file) is kept and tried again by the next call, so no acknowledged file stays for good.
 *
 * @example
 * ```ts
 * const spent = new SpentSegments(dir, nodeSpoolFs, log);
 * await spent.delete([seg.path]);
 * await spent.delete([]); // later: retries what failed
 * ```
 */
export class SpentSegments {
  private left: string[] = [];

  constructor(
    private readonly dir: string,
    private readonly fs: SpoolFs,
    private readonly log: Logger,
  ) {}

  /** Delete `paths` and whatever could not be deleted before. Never throws. */
  async delete(paths: string[]): Promise<void> {
    const all = this.left.length > 0 ? [...this.left, ...paths] : paths;
    if (all.length === 0) return;
    const left: string[] = [];
    for (const path of all) {
      await this.fs.unlink(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") left.push(path);
      });
    }
    this.left = left;
    if (left.length > 0 && paths.length > 0)
      this.log.warn("cannot delete acknowledged segments; retrying", { left });
    if (left.length < all.length) await syncDirectory(this.dir);
  }
}
