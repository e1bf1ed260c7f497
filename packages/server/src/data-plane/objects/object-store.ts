import { createHash } from "node:crypto";
import type { Readable } from "node:stream";

/** What {@link ObjectStore.put} did. */
export type StoredObject = {
  /** Lower-case hex sha256 of the bytes: the object's name. */
  sha256: string;
  sizeBytes: number;
  /** `false` when the same bytes were already stored (content addressing). */
  created: boolean;
};

/**
 * Content-addressed object storage: an object's name is the sha256 of its bytes, so the same
 * script or model is stored once and an object never changes after it is written.
 */
export type ObjectStore = {
  readonly kind: "local" | "s3";
  /**
   * Stores bytes (atomically: readers never see a partial object) and returns their digest.
   *
   * @example
   * ```ts
   * const { sha256, created } = await store.put(Buffer.from("#!/bin/bash\n"));
   * ```
   */
  put(body: Uint8Array | Readable): Promise<StoredObject>;
  /** The object's bytes as a stream, or `undefined` when there is no such object. */
  get(sha256: string): Promise<Readable | undefined>;
  /** Whether the object exists. */
  has(sha256: string): Promise<boolean>;
  /** Throws when the store cannot be reached (readiness probe). */
  check(): Promise<void>;
  /** Releases clients and sockets. */
  close(): Promise<void>;
};

const SHA256_HEX = /^[a-f0-9]{64}$/;

/** Whether a string is a lower-case hex sha256 digest (the only valid object names). */
export function isSha256(value: string): boolean {
  return SHA256_HEX.test(value);
}

/** `sha256/ab/abcdef…`: a two-level layout keeps folders and listings small. */
export function objectKey(sha256: string): string {
  if (!isSha256(sha256)) throw new TypeError(`Not a sha256 digest: ${sha256.slice(0, 80)}`);
  return `sha256/${sha256.slice(0, 2)}/${sha256}`;
}

/** sha256 of bytes, lower-case hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Reads a whole stream into memory (for stores that must know the digest before writing). */
export async function readAll(stream: Readable, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > maxBytes) throw new RangeError(`Object exceeds ${maxBytes} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size);
}
