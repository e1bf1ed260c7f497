import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseServerConfig } from "../../config/parse-config.js";
import { hashApiToken } from "../../platform/identity/api-token-hash.js";

describe("hashApiToken", () => {
  it("is the lower-case hex sha256 of the token's UTF-8 bytes", () => {
    expect(hashApiToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (token) => {
        expect(hashApiToken(token)).toBe(createHash("sha256").update(token, "utf8").digest("hex"));
      }),
    );
  });

  it("finds a configured token under the hash the configuration stores", () => {
    const token = "jst_a-configured-collector-token";
    const config = parseServerConfig({
      auth: { tokens: [{ token, role: "collector", user: "svc", cluster: "hpc1" }] },
    });
    expect(config.auth.tokens[0].tokenSha256).toBe(hashApiToken(token));
  });
});
