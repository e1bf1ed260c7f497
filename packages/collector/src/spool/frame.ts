import { crc32 } from "node:zlib";

/** What a spooled record holds; the kind decides where the shipper sends it. */
export type SpoolKind = "usage" | "event" | "job";

const kindCode: Record<SpoolKind, number> = { usage: 1, event: 2, job: 3 };
const codeKind: Record<number, SpoolKind> = { 1: "usage", 2: "event", 3: "job" };

/**
 * Frame layout (little endian):
 * `u32 payload length | u32 CRC-32 of bytes 8.. | u32 seq low | u32 seq high | u8 kind | payload (JSON, UTF-8)`.
 * The checksum covers the sequence, the kind and the payload, so a torn or half-written frame is
 * recognised as such and never replayed.
 */
export const FRAME_HEADER_BYTES = 17;
/** Frames larger than this are treated as corruption (a torn length field). */
export const MAX_FRAME_PAYLOAD = 16 * 1024 * 1024;

/** A decoded record. */
export type SpoolRecord = { seq: number; kind: SpoolKind; value: unknown };

/**
 * Encode one record into a frame.
 *
 * @example
 * ```ts
 * const bytes = encodeFrame(1, "usage", { jobId: "42" });
 * ```
 */
export function encodeFrame(seq: number, kind: SpoolKind, value: unknown): Buffer {
  // The JSON is written straight into the frame: no intermediate payload buffer and copy per record.
  const json = JSON.stringify(value);
  const length = Buffer.byteLength(json, "utf8");
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame.writeUInt32LE(length, 0);
  frame.writeUInt32LE(seq % 2 ** 32, 8);
  frame.writeUInt32LE(Math.floor(seq / 2 ** 32), 12);
  frame.writeUInt8(kindCode[kind], 16);
  frame.write(json, FRAME_HEADER_BYTES, length, "utf8");
  frame.writeUInt32LE(crc32(frame.subarray(8)), 4);
  return frame;
}

/** One frame found in a buffer, with where it lies. */
export type DecodedFrame = { seq: number; kind: SpoolKind; payload: Buffer; offset: number; length: number };

/** Why decoding stopped: `end` (clean), `partial` (needs more bytes), `corrupt` (bad frame). */
export type DecodeStop = "end" | "partial" | "corrupt";

/**
 * Decode the frame at `offset` of `buf`. Returns the frame, or why there is none: the buffer ends
 * cleanly, ends inside a frame, or the frame fails its checksum.
 *
 * @example
 * ```ts
 * const r = decodeFrame(buf, 0);
 * if ("seq" in r) console.log(r.seq, JSON.parse(r.payload.toString()));
 * ```
 */
export function decodeFrame(buf: Buffer, offset: number): DecodedFrame | DecodeStop {
  if (offset === buf.length) return "end";
  if (buf.length - offset < FRAME_HEADER_BYTES) return "partial";
  const len = buf.readUInt32LE(offset);
  if (len > MAX_FRAME_PAYLOAD) return "corrupt";
  const total = FRAME_HEADER_BYTES + len;
  if (buf.length - offset < total) return "partial";
  const crc = buf.readUInt32LE(offset + 4);
  if (crc32(buf.subarray(offset + 8, offset + total)) !== crc) return "corrupt";
  const kind = codeKind[buf.readUInt8(offset + 16)];
  if (!kind) return "corrupt";
  const seq = buf.readUInt32LE(offset + 8) + buf.readUInt32LE(offset + 12) * 2 ** 32;
  return {
    seq,
    kind,
    payload: buf.subarray(offset + FRAME_HEADER_BYTES, offset + total),
    offset,
    length: total,
  };
}
