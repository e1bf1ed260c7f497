import type { BufferPool } from "./buffer-pool.js";

/**
 * UTF-8 text (and the integers of binary formats) written piece after piece into one buffer, grown by doubling: for callers that make
 * a large body from many strings (COPY text, a batch answer), where joining the strings first
 * would cost the join, then measuring it, then encoding it. The buffer is never from the shared
 * pool, so it may be transferred to another thread.
 *
 * @example
 * ```ts
 * const out = new Utf8Writer(1024);
 * out.write("a\tb\n");
 * out.bytes(); // <Buffer 61 09 62 0a>
 * ```
 */
export class Utf8Writer {
  #out: Buffer;
  #length = 0;
  readonly #pool: BufferPool | undefined;

  /**
   * @param bytes the first size of the buffer: what the caller expects to write, if it knows.
   * @param pool where buffers come from (and the last one goes back to, on `release()`); without
   *   one, each is allocated.
   */
  constructor(bytes: number, pool?: BufferPool) {
    this.#pool = pool;
    this.#out = pool ? pool.take(bytes) : Buffer.allocUnsafeSlow(Math.max(64, bytes));
  }

  /** Appends `text`, growing the buffer when it may not fit; returns the bytes written. */
  write(text: string): number {
    const room = this.#out.length - this.#length;
    // UTF-8 takes at most three bytes per UTF-16 code unit: the exact length is only measured
    // where that bound does not fit (near the end of a buffer sized for what is expected).
    if (text.length * 3 > room) {
      const needed = Buffer.byteLength(text);
      if (needed > room) this.#grow(needed);
    }
    const written = this.#out.write(text, this.#length, "utf8");
    this.#length += written;
    return written;
  }

  /** Appends a big-endian 16-bit integer. */
  writeInt16(value: number): void {
    if (this.#out.length - this.#length < 2) this.#grow(2);
    this.#length = this.#out.writeInt16BE(value, this.#length);
  }

  /** Appends a big-endian 32-bit integer. */
  writeInt32(value: number): void {
    if (this.#out.length - this.#length < 4) this.#grow(4);
    this.#length = this.#out.writeInt32BE(value, this.#length);
  }

  /** Appends a big-endian 64-bit integer. */
  writeInt64(value: bigint): void {
    if (this.#out.length - this.#length < 8) this.#grow(8);
    this.#length = this.#out.writeBigInt64BE(value, this.#length);
  }

  /** Overwrites the big-endian 32-bit integer at byte `offset` (a length known only once written). */
  setInt32(offset: number, value: number): void {
    this.#out.writeInt32BE(value, offset);
  }

  /**
   * Appends bytes already encoded (a text written many times, encoded once), growing the buffer
   * when they do not fit.
   */
  writeBytes(bytes: Uint8Array): void {
    if (bytes.length > this.#out.length - this.#length) this.#grow(bytes.length);
    this.#out.set(bytes, this.#length);
    this.#length += bytes.length;
  }

  #grow(needed: number): void {
    const size = Math.max(this.#out.length * 2, this.#length + needed);
    // The buffer left behind is not given back to the pool: a view of it may still be read.
    const grown = this.#pool ? this.#pool.take(size) : Buffer.allocUnsafeSlow(size);
    this.#out.copy(grown, 0, 0, this.#length);
    this.#out = grown;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.#length;
  }

  /** What was written (a view of the buffer, not a copy). */
  bytes(): Buffer {
    return this.#out.subarray(0, this.#length);
  }

  /**
   * Empties the writer to be written again, keeping its buffer: for a caller that copies out
   * what it wrote each time. A view from `bytes()` taken before sees what is written next.
   */
  reset(): void {
    this.#length = 0;
  }

  /**
   * Gives the buffer back to the pool it came from, once nothing reads what was written (no view
   * from `bytes()` is used afterwards). The writer is empty after, and must not be written to.
   */
  release(): void {
    this.#pool?.give(this.#out);
    this.#out = EMPTY;
    this.#length = 0;
  }
}

const EMPTY = Buffer.alloc(0);
