import { describe, expect, it } from "vitest";
import { BufferPool } from "./buffer-pool.js";
import { Utf8Writer } from "./utf8-writer.js";

describe("Utf8Writer", () => {
  it("writes every piece in order, growing past its first size, wide characters included", () => {
    const pieces = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? `ünï€ ${i}\n` : `row ${i}\t`));
    const out = new Utf8Writer(16);
    for (const piece of pieces) out.write(piece);
    expect(out.bytes().equals(Buffer.from(pieces.join(""), "utf8"))).toBe(true);
  });

  it("fills a buffer sized exactly for its text without growing it", () => {
    const text = "x".repeat(100);
    const out = new Utf8Writer(100);
    out.write(text);
    expect(out.bytes().buffer.byteLength).toBe(100);
    expect(out.bytes().toString()).toBe(text);
  });

  it("copies bytes already encoded between texts, in order, growing past its first size", () => {
    const shared = Buffer.from("ünï€ shared\t", "utf8");
    const out = new Utf8Writer(8);
    let expected = "";
    for (let i = 0; i < 50; i++) {
      out.write(`${i}:`);
      out.writeBytes(shared);
      expected += `${i}:ünï€ shared\t`;
    }
    expect(out.bytes().toString("utf8")).toBe(expected);
  });

  it("is written again from the start after a reset, in the buffer it had", () => {
    const out = new Utf8Writer(64);
    out.write("first text");
    const buffer = out.bytes().buffer;
    out.reset();
    expect(out.length).toBe(0);
    out.writeInt16(-1);
    out.write("é");
    expect([...out.bytes()]).toEqual([0xff, 0xff, 0xc3, 0xa9]);
    expect(out.bytes().buffer).toBe(buffer);
  });

  it("is empty when nothing was written", () => {
    expect(new Utf8Writer(0).bytes().length).toBe(0);
  });
});

describe("Utf8Writer with a pool", () => {
  it("takes its buffers from the pool, keeps what grew out of use, and gives the last back", () => {
    const pool = new BufferPool({ minBytes: 64 });
    const out = new Utf8Writer(64, pool);
    const first = out.bytes().buffer;
    out.write("x".repeat(100));
    expect(out.bytes().buffer).not.toBe(first);
    expect(out.bytes().toString()).toBe("x".repeat(100));
    // The first buffer may still be read through a view taken before it grew: not reused.
    expect(pool.pooledBytes).toBe(0);
    const last = out.bytes().buffer;
    out.release();
    expect(out.length).toBe(0);
    expect(pool.pooledBytes).toBe(last.byteLength);
    expect(new Utf8Writer(100, pool).bytes().buffer).toBe(last);
  });
});
