import { describe, expect, it } from "vitest";
import { InvalidCursorError } from "../../errors.js";
import { decodeJobCursor, encodeJobCursor } from "./job-cursor.js";

describe("job cursor", () => {
  it("round-trips a keyset position, including odd ids", () => {
    const cursor = { submittedAt: "2026-12-01T10:00:00.123456Z", cluster: "hpc-1", jobId: "ns/pod name_7|x" };
    const text = encodeJobCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeJobCursor(text)).toEqual(cursor);
  });

  it.each([
    ["not base64url", "a+b/c="],
    ["not JSON", Buffer.from("{nope").toString("base64url")],
    [
      "another version",
      Buffer.from(JSON.stringify([2, "2026-12-01T10:00:00.000000Z", "c", "j"])).toString("base64url"),
    ],
    ["a bad time", Buffer.from(JSON.stringify([1, "yesterday", "c", "j"])).toString("base64url")],
    [
      "an empty job id",
      Buffer.from(JSON.stringify([1, "2026-12-01T10:00:00.000000Z", "c", ""])).toString("base64url"),
    ],
  ])("refuses %s with INVALID_CURSOR naming /query/cursor", (_, text) => {
    let error: unknown;
    try {
      decodeJobCursor(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidCursorError);
    expect((error as InvalidCursorError).toApiError()).toMatchObject({
      code: "INVALID_CURSOR",
      statusCode: 400,
      errors: [{ path: "/query/cursor" }],
    });
  });
});
