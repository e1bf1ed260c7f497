import { describe, expect, it } from "vitest";
import { nulCharacterErrors } from "./nul-characters.js";

describe("nulCharacterErrors", () => {
  it("names every string that holds U+0000, however deep", () => {
    const errors = nulCharacterErrors(
      { jobId: "\u0000", spec: { user: "ok", tags: ["a", "b\u0000c"] }, n: 3 },
      "/body",
    );
    expect(errors.map((e) => e.path)).toEqual(["/body/jobId", "/body/spec/tags/1"]);
    expect(errors[0].message).toMatch(/NUL/);
  });

  it("names keys that hold U+0000 and escapes JSON-pointer characters", () => {
    const errors = nulCharacterErrors({ "a/b": { "k\u0000": 1 } }, "/query");
    expect(errors.map((e) => e.path)).toEqual(["/query/a~1b/k\\u0000"]);
  });

  it("accepts clean values, binary bodies and a bare string at the root", () => {
    expect(nulCharacterErrors({ a: ["x", 1, null, true], b: Buffer.from([0, 0]) })).toEqual([]);
    expect(nulCharacterErrors("x\u0000")).toEqual([{ path: "/", message: expect.any(String) }]);
  });
});
