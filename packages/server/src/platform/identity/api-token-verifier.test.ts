import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ApiTokenRecord } from "../../data-plane/stores/api-token-store.js";
import { hashApiToken } from "./api-token-hash.js";
import { ApiTokenVerifier } from "./api-token-verifier.js";
import { ApiTokens, generateApiToken, InMemoryApiTokenStore } from "./api-tokens.js";
import { TokenError, type TokenErrorCode } from "./token-error.js";

const CONFIGURED = "configured-platform-token-0001";

async function reason(promise: Promise<unknown>): Promise<TokenErrorCode | undefined> {
  return promise.then(
    () => undefined,
    (e: unknown) => (e instanceof TokenError ? e.reason : undefined),
  );
}

/** A store that counts its look-ups. */
class CountingStore extends InMemoryApiTokenStore {
  lookups = 0;
  override async findByHash(tokenSha256: string): Promise<ApiTokenRecord | undefined> {
    this.lookups++;
    return super.findByHash(tokenSha256);
  }
}

function setup(options: { now?: () => number; cacheSize?: number } = {}) {
  const store = new CountingStore();
  const verifier = new ApiTokenVerifier({
    tokens: [{ id: "ops", tokenSha256: hashApiToken(CONFIGURED), role: "platform", user: "ops" }],
    store,
    ...options,
  });
  return { store, verifier, tokens: new ApiTokens(store) };
}

describe("ApiTokenVerifier", () => {
  it("accepts configured tokens without asking the store", async () => {
    const { store, verifier } = setup();
    await expect(verifier.verify(CONFIGURED)).resolves.toEqual({
      role: "platform",
      user: "ops",
      tokenId: "ops",
      via: "api-token",
    });
    expect(store.lookups).toBe(0);
  });

  it("binds a configured token to its cluster", async () => {
    const verifier = new ApiTokenVerifier({
      tokens: [
        {
          id: "c",
          tokenSha256: hashApiToken("collector-token-0001"),
          role: "collector",
          user: "svc",
          cluster: "hpc1",
        },
      ],
    });
    await expect(verifier.verify("collector-token-0001")).resolves.toMatchObject({ cluster: "hpc1" });
    await expect(verifier.verify("collector-token-0002")).resolves.toBeUndefined();
  });

  it("accepts issued tokens as their role on their cluster; one without a user acts as itself", async () => {
    const { verifier, tokens } = setup();
    const collector = await tokens.issue({ role: "collector", cluster: "hpc1" });
    await expect(verifier.verify(collector.token)).resolves.toEqual({
      role: "collector",
      user: `api-token:${collector.record.id}`,
      cluster: "hpc1",
      tokenId: `api-token:${collector.record.id}`,
      via: "api-token",
    });
    const scheduler = await tokens.issue({ role: "scheduler", cluster: "k8s-a", user: "svc-sched" });
    await expect(verifier.verify(scheduler.token)).resolves.toMatchObject({
      role: "scheduler",
      user: "svc-sched",
      cluster: "k8s-a",
    });
  });

  it("accepts stored tokens of any role, unbound ones on every cluster", async () => {
    const { store, verifier } = setup();
    const { token, prefix, tokenSha256 } = generateApiToken();
    await store.insert({
      id: "r1",
      prefix,
      tokenSha256,
      role: "researcher",
      user: "alice",
      createdAt: new Date(),
    });
    const principal = await verifier.verify(token);
    expect(principal).toEqual({
      role: "researcher",
      user: "alice",
      tokenId: "api-token:r1",
      via: "api-token",
    });
  });

  it("refuses a revoked token from the next request on", async () => {
    const { verifier, tokens } = setup();
    const { token, record } = await tokens.issue({ role: "collector", cluster: "hpc1" });
    await expect(verifier.verify(token)).resolves.toBeDefined();
    await expect(verifier.verify(token)).resolves.toBeDefined();
    await tokens.revoke(record.id);
    expect(await reason(verifier.verify(token))).toBe("TOKEN_REVOKED");
    expect(await reason(verifier.verify(token))).toBe("TOKEN_REVOKED");
  });

  it("leaves tokens it does not know to the next verifier, near misses included", async () => {
    const { verifier, tokens } = setup();
    const { token } = await tokens.issue({ role: "collector", cluster: "hpc1" });
    await expect(verifier.verify("eyJhbGciOiJSUzI1NiJ9.e30.sig")).resolves.toBeUndefined();
    await expect(verifier.verify(generateApiToken().token)).resolves.toBeUndefined();
    await expect(verifier.verify(`${token}x`)).resolves.toBeUndefined();
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 4, max: token.length - 1 }),
        fc.constantFrom(..."AZaz09-_"),
        async (i, c) => {
          fc.pre(token[i] !== c);
          await expect(verifier.verify(token.slice(0, i) + c + token.slice(i + 1))).resolves.toBeUndefined();
        },
      ),
      { numRuns: 100 },
    );
  });

  it("reuses the store's refusals for the cache's lifetime, never its acceptances", async () => {
    let now = 0;
    const { store, verifier, tokens } = setup({ now: () => now });
    const unknown = generateApiToken().token;
    await verifier.verify(unknown);
    await verifier.verify(unknown);
    expect(store.lookups).toBe(1);
    now = 10_000;
    await verifier.verify(unknown);
    expect(store.lookups).toBe(2);

    const { token, record } = await tokens.issue({ role: "collector", cluster: "hpc1" });
    store.lookups = 0;
    await verifier.verify(token);
    await verifier.verify(token);
    expect(store.lookups).toBe(2);
    await tokens.revoke(record.id);
    await verifier.verify(token).catch(() => {});
    await verifier.verify(token).catch(() => {});
    expect(store.lookups).toBe(3);
  });

  it("keeps at most cacheSize refusals", async () => {
    const { store, verifier } = setup({ cacheSize: 2 });
    const [a, b, c] = [1, 2, 3].map(() => generateApiToken().token);
    for (const t of [a, b, c]) await verifier.verify(t);
    store.lookups = 0;
    await verifier.verify(c);
    await verifier.verify(a);
    expect(store.lookups).toBe(1);
  });

  it("answers from the configuration alone without a store", async () => {
    const verifier = new ApiTokenVerifier();
    await expect(verifier.verify(generateApiToken().token)).resolves.toBeUndefined();
  });
});
