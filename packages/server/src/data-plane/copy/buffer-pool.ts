/** Options of {@link BufferPool}. */
export type BufferPoolOptions = {
  /**
   * Most bytes kept for reuse; a buffer given back beyond this is left to the garbage collector.
   * @default 32 MiB
   */
  maxPooledBytes?: number;
  /**
   * Smallest buffer handed out: a request for less gets this many bytes.
   * @default 64 KiB
   */
  minBytes?: number;
};

/**
 * Large buffers kept for reuse once their bytes are no longer needed (a batch's COPY text once
 * committed, a batch answer once sent): a fresh one costs a page fault per 4 KiB touched, more
 * than filling it (see docs/performance.md). Sizes are powers of two, so a buffer fits the next
 * request of its class whatever its exact size.
 *
 * @example
 * ```ts
 * const pool = new BufferPool();
 * const buffer = pool.take(100_000); // 128 KiB
 * pool.give(buffer);
 * pool.take(70_000) === buffer; // true
 * ```
 */
export class BufferPool {
  readonly #free = new Map<number, Buffer[]>();
  readonly #maxPooledBytes: number;
  readonly #minBytes: number;
  #pooledBytes = 0;

  constructor(options: BufferPoolOptions = {}) {
    this.#maxPooledBytes = options.maxPooledBytes ?? 32 * 1024 * 1024;
    this.#minBytes = options.minBytes ?? 64 * 1024;
  }

  /** A buffer of at least `bytes` (its size class), reused when one was given back. */
  take(bytes: number): Buffer {
    const size = sizeClass(Math.max(bytes, this.#minBytes));
    const reused = this.#free.get(size)?.pop();
    if (reused) {
      this.#pooledBytes -= size;
      return reused;
    }
    // Outside the shared pool of small buffers: it may be transferred to another thread.
    return Buffer.allocUnsafeSlow(size);
  }

  /**
   * Gives back a buffer taken from this pool. The caller must not use it, nor any view of it,
   * afterwards. A buffer not of a size class (not from `take`) or one too many is ignored.
   */
  give(buffer: Buffer): void {
    const size = buffer.byteLength;
    if (buffer.byteOffset !== 0 || buffer.buffer.byteLength !== size || sizeClass(size) !== size) return;
    if (size < this.#minBytes || this.#pooledBytes + size > this.#maxPooledBytes) return;
    let list = this.#free.get(size);
    if (!list) {
      list = [];
      this.#free.set(size, list);
    }
    list.push(buffer);
    this.#pooledBytes += size;
  }

  /** Bytes kept for reuse now. */
  get pooledBytes(): number {
    return this.#pooledBytes;
  }
}

function sizeClass(bytes: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, bytes)));
}
