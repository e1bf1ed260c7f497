import { describe, expect, it } from "vitest";
import { BufferPool } from "./buffer-pool.js";

describe("BufferPool", () => {
  it("hands out power-of-two buffers of at least the size asked, never less than its minimum", () => {
    const pool = new BufferPool({ minBytes: 1024 });
    expect(pool.take(10).byteLength).toBe(1024);
    expect(pool.take(1025).byteLength).toBe(2048);
    expect(pool.take(4096).byteLength).toBe(4096);
  });

  it("reuses a buffer given back for the next request of its size class only", () => {
    const pool = new BufferPool({ minBytes: 1024 });
    const a = pool.take(3000);
    pool.give(a);
    expect(pool.pooledBytes).toBe(4096);
    expect(pool.take(5000)).not.toBe(a);
    expect(pool.take(2049)).toBe(a);
    expect(pool.pooledBytes).toBe(0);
    expect(pool.take(3000)).not.toBe(a);
  });

  it("keeps no more than its byte budget, and ignores buffers it could not have made", () => {
    const pool = new BufferPool({ minBytes: 1024, maxPooledBytes: 8192 });
    const buffers = [pool.take(4096), pool.take(4096), pool.take(4096)];
    for (const b of buffers) pool.give(b);
    expect(pool.pooledBytes).toBe(8192);
    pool.give(Buffer.allocUnsafeSlow(3000));
    pool.give(pool.take(1024).subarray(0, 512));
    pool.give(Buffer.alloc(512));
    expect(pool.pooledBytes).toBe(8192);
  });

  it("makes buffers that can be moved to another thread", () => {
    const buffer = new BufferPool().take(100);
    const { port1, port2 } = new MessageChannel();
    const moved = buffer.buffer as ArrayBuffer;
    port1.postMessage(moved, [moved]);
    port1.close();
    port2.close();
    expect(buffer.byteLength).toBe(0);
  });
});
