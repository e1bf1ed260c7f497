import { describe, expect, it } from "vitest";
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

  it("is empty when nothing was written", () => {
    expect(new Utf8Writer(0).bytes().length).toBe(0);
  });
});
