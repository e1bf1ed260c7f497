import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { streamJsonArray } from "./json-array-stream.js";

async function collect(chunks: string[], key = "jobs") {
  const out = [];
  for await (const item of streamJsonArray(Readable.from(chunks), key)) out.push(item);
  return out;
}

describe("streamJsonArray", () => {
  const doc = JSON.stringify({
    meta: { jobs: [{ not: "these" }], note: 'a "jobs": [ in a string ]' },
    jobs: [{ a: 1, s: '}{][\\"' }, { b: [1, { c: 2 }] }],
    errors: [],
  });

  it("yields the elements of the top-level array only", async () => {
    const items = await collect([doc]);
    expect(items.map((i) => JSON.parse(i.text))).toEqual(JSON.parse(doc).jobs);
    expect(items.map((i) => i.index)).toEqual([1, 2]);
  });

  it("gives the same elements whatever the chunk boundaries", async () => {
    const expected = (await collect([doc])).map((i) => i.text);
    for (const size of [1, 2, 3, 7, 13]) {
      const chunks = [];
      for (let i = 0; i < doc.length; i += size) chunks.push(doc.slice(i, i + size));
      expect((await collect(chunks)).map((i) => i.text)).toEqual(expected);
    }
  });

  it("refuses a document without the array, and a truncated one", async () => {
    await expect(collect(['{"other": []}'])).rejects.toThrow(/No "jobs" array/);
    await expect(collect(['{"jobs": [{"a": 1}, {"b"'])).rejects.toThrow(/truncated/);
  });
});
