import { describe, expect, it } from "vitest";
import { copyTextBuffer, copyTextChunks, copyTextField, copyTextInto } from "./copy-text.js";
import { Utf8Writer } from "./utf8-writer.js";

describe("copyTextField", () => {
  it("writes null and undefined as \\N", () => {
    expect(copyTextField(null)).toBe("\\N");
    expect(copyTextField(undefined)).toBe("\\N");
    expect(copyTextField(Number.NaN)).toBe("\\N");
  });

  it("escapes the characters that delimit COPY fields and rows", () => {
    expect(copyTextField("a\tb\nc\rd\\e")).toBe("a\\tb\\nc\\rd\\\\e");
  });

  it("escapes them in long texts too, wherever they are, and leaves a long text without any as it is", () => {
    const pad = "x".repeat(100);
    for (const c of ["\\", "\n", "\r", "\t"]) {
      expect(copyTextField(`${pad}${c}${pad}`)).toBe(`${pad}${copyTextField(c)}${pad}`);
    }
    expect(copyTextField(pad)).toBe(pad);
  });

  it("writes objects as JSON with their backslashes escaped once more", () => {
    const text = copyTextField({ message: 'say "hi"\n' });
    expect(text).toBe('{"message":"say \\\\"hi\\\\"\\\\n"}');
  });

  it("writes numbers, booleans and dates as PostgreSQL reads them", () => {
    expect(copyTextField(12.5)).toBe("12.5");
    expect(copyTextField(true)).toBe("t");
    expect(copyTextField(new Date("2026-12-01T00:00:00Z"))).toBe("2026-12-01T00:00:00.000Z");
  });
});

describe("copyTextInto", () => {
  it("appends to what the writer holds, growing it, the same bytes as one buffer of all rows", () => {
    const rows = Array.from({ length: 40 }, (_, i) => [i, `row\t${i}`, { n: i, s: "é\\" }, null]);
    const out = new Utf8Writer(16);
    for (let i = 0; i < rows.length; i += 7) copyTextInto(out, rows.slice(i, i + 7));
    expect(out.length).toBe(out.bytes().length);
    expect(out.bytes().equals(copyTextBuffer(rows))).toBe(true);
  });
});

describe("copyTextBuffer", () => {
  it("holds exactly the text the streamed chunks hold, in UTF-8, however long the rows", () => {
    const long = "é".repeat(3000); // two bytes each in UTF-8, longer than the 1 KiB a row is sized for
    const rows = [
      [1, "a\tb", null, { note: "ünïcode \\ ok" }],
      [2, long, 3.5, new Date("2026-12-01T00:00:00Z")],
      ...Array.from({ length: 200 }, (_, i) => [i, `row ${i}`, true, { i }]),
    ];
    const streamed = [...copyTextChunks(rows)].join("");
    const buffer = copyTextBuffer(rows);
    expect(buffer.toString("utf8")).toBe(streamed);
    expect(buffer.byteLength).toBe(Buffer.byteLength(streamed));
    // Its own memory, not a slice of Node's shared pool: it may be transferred to a thread.
    expect(buffer.buffer.byteLength).toBeGreaterThanOrEqual(buffer.byteLength);
    expect(copyTextBuffer([]).byteLength).toBe(0);
  });
});
