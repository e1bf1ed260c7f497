import { open } from "node:fs/promises";
import { type DecodeStop, decodeFrame, type SpoolKind } from "./frame.js";

/** Where one frame lies in a segment. */
export type FrameInfo = { seq: number; kind: SpoolKind; offset: number; length: number };

/** What a full pass over a segment found. */
export type SegmentScan = {
  frames: FrameInfo[];
  /** Bytes from the start that hold whole, verified frames. */
  validBytes: number;
  /** File size; more than `validBytes` after a torn write or corruption. */
  fileBytes: number;
  stop: DecodeStop;
};

const CHUNK = 1024 * 1024;

/**
 * Read frames of a segment file from `offset`, verifying each checksum, until the end, the first
 * bad frame, or `limit` frames. Reads in chunks so a large segment is never held whole in memory.
 *
 * @example
 * ```ts
 * const scan = await scanSegment("/spool/seg-0000000000000001.0.log");
 * if (scan.validBytes < scan.fileBytes) console.log("torn tail");
 * ```
 */
export async function scanSegment(
  path: string,
  offset = 0,
  visit?: (frame: FrameInfo, payload: Buffer) => boolean | undefined,
): Promise<SegmentScan> {
  const fh = await open(path, "r");
  try {
    const size = (await fh.stat()).size;
    const frames: FrameInfo[] = [];
    let pos = offset;
    let buf = Buffer.alloc(0);
    let bufStart = offset;
    let stop: DecodeStop = "end";
    for (;;) {
      const r = decodeFrame(buf, pos - bufStart);
      if (typeof r === "object") {
        const info: FrameInfo = { seq: r.seq, kind: r.kind, offset: pos, length: r.length };
        frames.push(info);
        pos += r.length;
        if (visit && visit(info, r.payload) === false) break;
        continue;
      }
      if (r === "corrupt") {
        stop = "corrupt";
        break;
      }
      // "end" or "partial": read more unless the file has no more.
      const haveEnd = bufStart + buf.length;
      if (haveEnd >= size) {
        stop = r === "end" ? "end" : "partial";
        break;
      }
      const want = Math.max(CHUNK, (r === "partial" ? frameLengthHint(buf, pos - bufStart) : 0) + 64);
      const chunk = Buffer.allocUnsafe(Math.min(want, size - haveEnd));
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, haveEnd);
      if (bytesRead === 0) {
        stop = "partial";
        break;
      }
      buf = Buffer.concat([buf.subarray(pos - bufStart), chunk.subarray(0, bytesRead)]);
      bufStart = pos;
    }
    return { frames, validBytes: pos, fileBytes: size, stop };
  } finally {
    await fh.close();
  }
}

function frameLengthHint(buf: Buffer, at: number): number {
  return buf.length - at >= 4 ? buf.readUInt32LE(at) + 17 : 0;
}
