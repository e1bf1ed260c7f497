import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../errors.js";
import {
  type ApiTokenRole,
  ApiTokens,
  generateApiToken,
  hashApiToken,
  InMemoryApiTokenStore,
  looksLikeApiToken,
} from "./api-tokens.js";
import { TokenError, type TokenErrorCode } from "./token-error.js";

async function reason(promise: Promise<unknown>): Promise<TokenErrorCode | undefined> {
  return promise.then(
    () => undefined,
    (e: unknown) => (e instanceof TokenError ? e.reason : undefined),
  );
}

describe("generateApiToken", () => {
  it("makes distinct jst_ tokens of 256 random bits with their prefix and sha256", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { token, prefix, tokenSha256 } = generateApiToken();
      expect(token).toMatch(/^jst_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token.slice(4), "base64url")).toHaveLength(32);
      expect(token.startsWith(prefix)).toBe(true);
      expect(prefix).toHaveLength(12);
      expect(tokenSha256).toBe(createHash("sha256").update(token).digest("hex"));
      seen.add(token);
    }
    expect(seen.size).toBe(200);
  });
});

describe("ApiTokens", () => {
  it("issues a token shown once, stores only its hash, and verifies it to a cluster-bound principal", async () => {
    const store = new InMemoryApiTokenStore();
    const tokens = new ApiTokens(store, { now: () => new Date("2026-03-01T00:00:00Z") });
    const { token, record } = await tokens.issue({
      role: "collector",
      cluster: "hpc1",
      label: "node collectors",
    });
    expect(JSON.stringify(await store.list())).not.toContain(token);
    expect(JSON.stringify(await store.list())).not.toContain(token.slice(12));
    expect(record).toMatchObject({ role: "collector", cluster: "hpc1", tokenSha256: hashApiToken(token) });

    const { principal } = await tokens.verify(token);
    expect(principal).toEqual({
      subject: `api-token:${record.id}`,
      roles: ["collector"],
      clusters: ["hpc1"],
      source: "api-token",
    });
  });

  it("carries the scheduler's user", async () => {
    const tokens = new ApiTokens(new InMemoryApiTokenStore());
    const { token } = await tokens.issue({ role: "scheduler", cluster: "k8s-a", user: "svc-sched" });
    await expect(tokens.verify(token)).resolves.toMatchObject({
      principal: { user: "svc-sched", roles: ["scheduler"] },
    });
  });

  it("refuses revoked tokens from the next request on", async () => {
    const tokens = new ApiTokens(new InMemoryApiTokenStore());
    const { token, record } = await tokens.issue({ role: "collector", cluster: "hpc1" });
    await tokens.verify(token);
    expect(await tokens.revoke(record.id)).toBe(true);
    expect(await tokens.revoke(record.id)).toBe(false);
    expect(await reason(tokens.verify(token))).toBe("TOKEN_REVOKED");
    expect((await tokens.list())[0].revokedAt).toBeInstanceOf(Date);
  });

  it("refuses tokens that are malformed or were never issued, including near misses", async () => {
    const tokens = new ApiTokens(new InMemoryApiTokenStore());
    const { token } = await tokens.issue({ role: "collector", cluster: "hpc1" });
    expect(await reason(tokens.verify("Bearer x"))).toBe("TOKEN_MALFORMED");
    expect(await reason(tokens.verify(`${token}x`))).toBe("TOKEN_MALFORMED");
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 4, max: token.length - 1 }),
        fc.constantFrom(..."AZaz09-_"),
        async (i, c) => {
          fc.pre(token[i] !== c);
          const nearMiss = token.slice(0, i) + c + token.slice(i + 1);
          expect(await reason(tokens.verify(nearMiss))).toBe("TOKEN_UNKNOWN");
        },
      ),
      { numRuns: 100 },
    );
    expect(await reason(tokens.verify(generateApiToken().token))).toBe("TOKEN_UNKNOWN");
  });

  it("tells apart tokens that share a prefix", async () => {
    const store = new InMemoryApiTokenStore();
    const tokens = new ApiTokens(store);
    const a = generateApiToken();
    const b = `${a.prefix}${generateApiToken().token.slice(12)}`;
    const base = { role: "collector" as const, createdAt: new Date() };
    await store.insert({ ...base, id: "a", prefix: a.prefix, tokenSha256: a.tokenSha256, cluster: "hpc1" });
    await store.insert({ ...base, id: "b", prefix: a.prefix, tokenSha256: hashApiToken(b), cluster: "hpc2" });
    await expect(tokens.verify(a.token)).resolves.toMatchObject({ record: { id: "a" } });
    await expect(tokens.verify(b)).resolves.toMatchObject({ record: { id: "b" } });
  });

  it("issues only cluster-bound collector and scheduler tokens", async () => {
    const tokens = new ApiTokens(new InMemoryApiTokenStore());
    await expect(tokens.issue({ role: "platform" as ApiTokenRole, cluster: "hpc1" })).rejects.toThrow(
      ValidationError,
    );
    await expect(tokens.issue({ role: "collector", cluster: "" })).rejects.toThrow(ValidationError);
  });

  it("recognises the token shape", () => {
    expect(looksLikeApiToken(generateApiToken().token)).toBe(true);
    expect(looksLikeApiToken("eyJhbGciOiJSUzI1NiJ9.e30.sig")).toBe(false);
  });
});
