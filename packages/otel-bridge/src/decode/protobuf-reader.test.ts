import { describe, expect, it } from "vitest";
import { ProtobufReader } from "./protobuf-reader.js";

/** Length-delimited strings one after another, as a string field's values sit in a message. */
function delimited(texts: readonly string[]): Uint8Array {
  const parts: number[] = [];
  for (const text of texts) {
    const bytes = Buffer.from(text, "utf8");
    parts.push(bytes.length, ...bytes);
  }
  return Uint8Array.from(parts);
}

describe("ProtobufReader.string", () => {
  it("reads back strings that differ in one byte at any position, however often they repeat", () => {
    // Every length the cache takes word by word and byte by byte, each string changed at each
    // position, read three times over: a slot's hit must never hand out a neighbour's text.
    const texts: string[] = [];
    for (let length = 1; length <= 23; length++) {
      const base = "node-0123456789-abcdefghij".slice(0, length);
      texts.push(base);
      for (let at = 0; at < length; at++) texts.push(`${base.slice(0, at)}#${base.slice(at + 1)}`);
    }
    texts.push("ünïcødé", "ünïcødë", "");
    const all = [...texts, ...texts.slice().reverse(), ...texts];
    const bytes = delimited(all);
    const reader = new ProtobufReader(bytes);
    const read: string[] = [];
    while (reader.pos < reader.length) read.push(reader.string(reader.length));
    expect(read).toEqual(all);
  });

  it("reads a string beyond the cached length whole", () => {
    const long = "x".repeat(100);
    const reader = new ProtobufReader(Uint8Array.from([100, ...Buffer.from(long)]));
    expect(reader.string(reader.length)).toBe(long);
  });
});
