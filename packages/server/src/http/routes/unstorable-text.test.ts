import { describe, expect, it } from "vitest";
import { unstorableTextErrors } from "./unstorable-text.js";

describe("unstorableTextErrors", () => {
  it("names every string that holds U+0000, however deep", () => {
    const errors = unstorableTextErrors(
      { jobId: "\u0000", spec: { user: "ok", tags: ["a", "b\u0000c"] }, n: 3 },
      "/body",
    );
    expect(errors.map((e) => e.path)).toEqual(["/body/jobId", "/body/spec/tags/1"]);
    expect(errors[0].message).toMatch(/NUL/);
  });

  it("names every string that holds an unpaired surrogate, high or low, and passes pairs", () => {
    const errors = unstorableTextErrors({
      records: [
        { jobName: "emoji \ud83d\ude00 fine", node: "n1" },
        { jobName: "x\ud800", node: "\udc00y", account: "\ud83d\ude00\ud83d" },
      ],
    });
    expect(errors.map((e) => e.path)).toEqual([
      "/records/1/jobName",
      "/records/1/node",
      "/records/1/account",
    ]);
    expect(errors[0].message).toMatch(/unpaired UTF-16 surrogate/);
  });

  it("names keys that hold U+0000 or a lone surrogate and escapes JSON-pointer characters", () => {
    const errors = unstorableTextErrors({ "a/b": { "k\u0000": 1, "s\ud800": 2 } }, "/query");
    expect(errors.map((e) => e.path)).toEqual(["/query/a~1b/k\\u0000", "/query/a~1b/s\\ud800"]);
  });

  it("accepts clean values, binary bodies and a bare string at the root", () => {
    expect(
      unstorableTextErrors({ a: ["x", 1, null, true], b: Buffer.from([0, 0, 0xed, 0xa0, 0x80]) }),
    ).toEqual([]);
    expect(unstorableTextErrors("x\u0000")).toEqual([{ path: "/", message: expect.any(String) }]);
    expect(unstorableTextErrors("\udfff")).toEqual([{ path: "/", message: expect.any(String) }]);
  });
});
