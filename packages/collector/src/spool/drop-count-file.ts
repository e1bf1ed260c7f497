import { readFile } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { writeFileAtomic } from "./atomic-file.js";
import { nodeSpoolFs, SPOOL_FILE_MODE, type SpoolFs } from "./spool-fs.js";

/** Name of the drop-count file in the spool's folder. */
export const DROP_COUNT_FILE = "drop-count";

const SLOT_BYTES = 32;
const SLOT = /^(\d{1,15}):(\d{1,15}):([0-9a-f]{8}) *\n$/;

/** One slot: `<generation>:<count>:<crc32 of "<generation>:<count>">`, padded to 32 bytes. */
function slot(generation: number, count: number): Buffer {
  const body = `${generation}:${count}`;
  const text = `${body}:${crc32(body).toString(16).padStart(8, "0")}`;
  return Buffer.from(`${text.padEnd(SLOT_BYTES - 1)}\n`);
}

/** A slot's generation and count, or undefined when it is torn or not one. */
function parseSlot(bytes: Buffer): { generation: number; count: number } | undefined {
  const m = SLOT.exec(bytes.toString("latin1"));
  if (!m || crc32(`${m[1]}:${m[2]}`) !== Number.parseInt(m[3], 16)) return undefined;
  return { generation: Number(m[1]), count: Number(m[2]) };
}

/** The newest intact slot of a drop-count file's content. */
function newestSlot(content: Buffer): { generation: number; count: number } | undefined {
  const slots = [0, 1].map((i) => parseSlot(content.subarray(i * SLOT_BYTES, (i + 1) * SLOT_BYTES)));
  return slots.reduce((a, b) => (b && (!a || b.generation > a.generation) ? b : a), undefined);
}

/**
 * Reads the count a {@link DropCountFile} holds at `path`: 0 when there is none or neither of
 * its slots is intact.
 *
 * @example
 * ```ts
 * const dropped = Math.max(state.droppedSamples, await readDropCount(join(dir, DROP_COUNT_FILE)));
 * ```
 */
export function readDropCount(path: string): Promise<number> {
  return new DropCountFile(path, nodeSpoolFs).load();
}

/**
 * The count of dropped samples, kept where a full disk cannot stop it being written: a file of
 * two fixed slots, made while there is room and afterwards only overwritten in place, which
 * takes no new space. Each write goes to the older slot with a checksum and is fsynced, so a
 * write torn by a crash leaves the other slot's count. Its count only grows: the spool reads
 * the larger of it and the state file's.
 *
 * @example
 * ```ts
 * const counter = new DropCountFile(join(dir, DROP_COUNT_FILE), nodeSpoolFs);
 * const dropped = await counter.load(); // at open
 * await counter.prepare(dropped);      // made while there is room
 * await counter.write(state.droppedSamples); // on a full disk too
 * ```
 */
export class DropCountFile {
  private generation = 0;
  private ready = false;

  constructor(
    private readonly path: string,
    private readonly fs: SpoolFs,
  ) {}

  /**
   * The count the file holds (0 without an intact slot), read once at open; later writes carry on
   * from its generation. A file of the wrong size is made anew by {@link prepare}.
   */
  async load(): Promise<number> {
    const content = await readFile(this.path).catch(() => Buffer.alloc(0));
    const newest = newestSlot(content);
    if (newest && content.length === 2 * SLOT_BYTES) {
      this.generation = newest.generation;
      this.ready = true;
    }
    return newest?.count ?? 0;
  }

  /**
   * Make the file (holding `count`) unless there is one; false when it cannot be made now
   * (disk full), and {@link write} makes it when it can.
   */
  async prepare(count: number): Promise<boolean> {
    // A file made earlier is carried on, never made anew over its count.
    if (!this.ready) await this.load();
    if (this.ready) return true;
    try {
      await writeFileAtomic(this.path, Buffer.concat([slot(0, count), slot(0, count)]), this.fs);
    } catch {
      return false;
    }
    this.ready = true;
    return true;
  }

  /** Write `count` in place and fsync it; false when it could not be (never throws). */
  async write(count: number): Promise<boolean> {
    if (!(await this.prepare(count))) return false;
    const generation = this.generation + 1;
    try {
      const fh = await this.fs.open(this.path, "r+", SPOOL_FILE_MODE);
      try {
        const bytes = slot(generation, count);
        await fh.write(bytes, 0, bytes.length, (generation % 2) * SLOT_BYTES);
        await fh.datasync();
      } finally {
        await fh.close();
      }
    } catch {
      return false;
    }
    this.generation = generation;
    return true;
  }
}
