import { describe, expect, it } from "vitest";
import { copyTextField } from "./copy-rows.js";

describe("copyTextField", () => {
  it("writes null and undefined as \\N", () => {
    expect(copyTextField(null)).toBe("\\N");
    expect(copyTextField(undefined)).toBe("\\N");
    expect(copyTextField(Number.NaN)).toBe("\\N");
  });

  it("escapes the characters that delimit COPY fields and rows", () => {
    expect(copyTextField("a\tb\nc\rd\\e")).toBe("a\\tb\\nc\\rd\\\\e");
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
