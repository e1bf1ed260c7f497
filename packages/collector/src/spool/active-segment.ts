import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { syncDirectory } from "./atomic-file.js";
import { encodeFrame, type SpoolKind } from "./frame.js";
import { SPOOL_FILE_MODE, type SpoolFs, writeFully } from "./spool-fs.js";
import { type Segment, segmentName } from "./spool-recovery.js";

/**
 * The segment appends go to, with its open file. A write that fails (disk full, short write) is
 * cut back to the last whole frame, or, if even that fails, before the next write: a torn frame
 * never ends up in front of good ones, where recovery would cut them off with it.
 *
 * @example
 * ```ts
 * const active = await ActiveSegment.create(dir, nextSeq, nodeSpoolFs);
 * await active.append([{ kind: "usage", value: sample }], nextSeq, true);
 * ```
 */
export class ActiveSegment {
  private mustCut = false;

  private constructor(
    readonly seg: Segment,
    private readonly fh: FileHandle,
  ) {}

  /** Create generation 0 of segment `id` (mode 0600) in `dir`. */
  static async create(dir: string, id: number, fs: SpoolFs): Promise<ActiveSegment> {
    const path = join(dir, segmentName(id, 0));
    const fh = await fs.open(path, "w", SPOOL_FILE_MODE);
    await syncDirectory(dir);
    return new ActiveSegment({ id, gen: 0, path, bytes: 0, firstSeq: id, lastSeq: id - 1, usage: 0 }, fh);
  }

  /**
   * Append `items` numbered from `firstSeq`, durably when `fsync`, and account for them in `seg`.
   * On failure nothing of them stays and `seg` is unchanged.
   */
  async append(
    items: { kind: SpoolKind; value: unknown }[],
    firstSeq: number,
    fsync: boolean,
  ): Promise<void> {
    const seg = this.seg;
    let usage = 0;
    let length = 0;
    // One gathered write instead of concatenating the frames: no batch-sized copy per round.
    const frames = items.map((item, i) => {
      if (item.kind === "usage") usage++;
      const frame = encodeFrame(firstSeq + i, item.kind, item.value);
      length += frame.length;
      return frame;
    });
    if (this.mustCut) {
      await this.fh.truncate(seg.bytes);
      this.mustCut = false;
    }
    try {
      await writeFully(this.fh, frames, seg.bytes);
      if (fsync) await this.fh.datasync();
    } catch (error) {
      await this.fh.truncate(seg.bytes).catch(() => {
        this.mustCut = true;
      });
      throw error;
    }
    if (seg.bytes === 0) seg.firstSeq = firstSeq;
    seg.bytes += length;
    seg.lastSeq = firstSeq + items.length - 1;
    seg.usage += usage;
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}
