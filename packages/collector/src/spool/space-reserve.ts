import { writeFileAtomic } from "./atomic-file.js";
import { isDiskFull, type SpoolFs } from "./spool-fs.js";

/**
 * A small file the spool keeps beside its segments and gives up when the disk is full: the room
 * it frees lets the spool still record the batches it sends and their acknowledgements, so it
 * can ship and delete its own segments instead of waiting for someone else to free space.
 *
 * @example
 * ```ts
 * const reserve = new SpaceReserve(join(dir, "reserve"), nodeSpoolFs);
 * if (!(await reserve.fill())) throw new Error("disk full"); // before appending
 * if (await reserve.release()) retryTheWrite();
 * ```
 */
export class SpaceReserve {
  private present = false;

  constructor(
    private readonly path: string,
    private readonly fs: SpoolFs,
    private readonly bytes = 64 * 1024,
  ) {}

  /**
   * Create the reserve if it is missing. False when the disk has no room for it: then the room
   * left is the reserve's, and appending must wait.
   */
  async fill(): Promise<boolean> {
    if (this.present) return true;
    try {
      await writeFileAtomic(this.path, Buffer.alloc(this.bytes), this.fs);
      this.present = true;
    } catch (error) {
      // Any other failure (a file system that refuses the file) must not stop the spool.
      return !isDiskFull(error);
    }
    return true;
  }

  /** Give the reserve's room back to the file system; false when there was none to give. */
  async release(): Promise<boolean> {
    this.present = false;
    return this.fs.unlink(this.path).then(
      () => true,
      () => false,
    );
  }
}
