import { createHmac } from "node:crypto";
import { exportSPKI } from "jose";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SecurityConfigError } from "../security-config-error.js";
import { LocalOidcIssuer } from "../test-support/local-oidc-issuer.js";
import { OidcVerifier, type OidcVerifierOptions } from "./oidc-verifier.js";
import { TokenError, type TokenErrorCode } from "./token-error.js";

let issuer: LocalOidcIssuer;

beforeEach(async () => {
  issuer = await LocalOidcIssuer.start();
});
afterEach(async () => {
  await issuer.close();
});

function verifier(options: Partial<OidcVerifierOptions> = {}): OidcVerifier {
  return new OidcVerifier({
    issuer: issuer.url,
    audience: "jobsight",
    claims: {
      groupGrants: {
        "hpc-users": { roles: ["researcher"] },
        "hpc1-admins": { roles: ["platform"], clusters: ["hpc1"] },
      },
    },
    ...options,
  });
}

async function refusal(promise: Promise<unknown>): Promise<TokenErrorCode> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TokenError);
  expect((error as TokenError).statusCode).toBe(401);
  return (error as TokenError).reason;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);

describe("OidcVerifier", () => {
  it("accepts a valid token and maps its claims to a principal", async () => {
    const token = await issuer.sign({
      sub: "u-1",
      preferred_username: "alice",
      groups: ["hpc-users", "other"],
    });
    const { principal, claims } = await verifier().verify(token);
    expect(principal).toEqual({
      subject: "u-1",
      user: "alice",
      roles: ["researcher"],
      clusters: "all",
      source: "oidc",
    });
    expect(claims.iss).toBe(issuer.url);
    expect(issuer.hits).toEqual({ discovery: 1, jwks: 1 });
  });

  it("fetches discovery and the JWKS once and serves later tokens from the cache", async () => {
    const v = verifier();
    for (let i = 0; i < 5; i++) await v.verify(await issuer.sign({ sub: `u-${i}` }));
    expect(issuer.hits).toEqual({ discovery: 1, jwks: 1 });
  });

  it("accepts ES256 and EdDSA keys by default and refuses RS384 unless allow-listed", async () => {
    const v = verifier({ jwksCooldownMs: 0 });
    for (const alg of ["ES256", "EdDSA"]) {
      const key = await issuer.addKey(alg);
      await expect(v.verify(await issuer.sign({ sub: alg }, { key }))).resolves.toBeDefined();
    }
    const rs384 = await issuer.addKey("RS384");
    expect(await refusal(v.verify(await issuer.sign({ sub: "x" }, { key: rs384 })))).toBe("TOKEN_ALGORITHM");
    const allowing = verifier({ algorithms: ["RS384"] });
    await expect(allowing.verify(await issuer.sign({ sub: "x" }, { key: rs384 }))).resolves.toBeDefined();
  });

  it("follows a key rotation: new-key tokens verify after a refetch, old-key tokens while published", async () => {
    const v = verifier({ jwksCooldownMs: 0 });
    const old = issuer.active;
    const oldToken = await issuer.sign({ sub: "old" });
    await v.verify(oldToken);
    expect(issuer.hits.jwks).toBe(1);

    await issuer.rotate();
    const newToken = await issuer.sign({ sub: "new" });
    await expect(v.verify(newToken)).resolves.toMatchObject({ principal: { subject: "new" } });
    expect(issuer.hits.jwks).toBe(2);
    await expect(v.verify(oldToken)).resolves.toMatchObject({ principal: { subject: "old" } });

    issuer.retire(old);
    await issuer.rotate();
    await v.verify(await issuer.sign({ sub: "newest" }));
    expect(issuer.hits.jwks).toBe(3);
    expect(await refusal(v.verify(oldToken))).toBe("TOKEN_SIGNATURE");
  });

  it("does not refetch the JWKS for unknown key ids during the cooldown", async () => {
    const v = verifier();
    await v.verify(await issuer.sign({ sub: "a" }));
    await issuer.rotate();
    const token = await issuer.sign({ sub: "b" });
    for (let i = 0; i < 3; i++) expect(await refusal(v.verify(token))).toBe("TOKEN_SIGNATURE");
    expect(issuer.hits.jwks).toBe(1);
  });

  it("refuses an expired token and accepts one that expired within the clock skew", async () => {
    const v = verifier();
    const expired = await issuer.sign({ sub: "u" }, { expiresInSeconds: -120 });
    expect(await refusal(v.verify(expired))).toBe("TOKEN_EXPIRED");

    const justExpired = await issuer.sign({ sub: "u" }, { expiresInSeconds: -10 });
    await expect(v.verify(justExpired)).resolves.toBeDefined();
    expect(await refusal(verifier({ clockToleranceSeconds: 0 }).verify(justExpired))).toBe("TOKEN_EXPIRED");
  });

  it("applies not-before with the same clock skew", async () => {
    const v = verifier();
    await expect(v.verify(await issuer.sign({ sub: "u", nbf: now() + 10 }))).resolves.toBeDefined();
    expect(await refusal(v.verify(await issuer.sign({ sub: "u", nbf: now() + 300 })))).toBe(
      "TOKEN_NOT_YET_VALID",
    );
  });

  it("uses the injected clock", async () => {
    const token = await issuer.sign({ sub: "u" }, { expiresInSeconds: 300 });
    const later = verifier({ now: () => new Date(Date.now() + 3_600_000) });
    expect(await refusal(later.verify(token))).toBe("TOKEN_EXPIRED");
  });

  it("refuses a token for another audience, and accepts any configured audience", async () => {
    const token = await issuer.sign({ sub: "u" }, { audience: "grafana" });
    expect(await refusal(verifier().verify(token))).toBe("TOKEN_AUDIENCE");
    await expect(verifier({ audience: ["jobsight", "grafana"] }).verify(token)).resolves.toBeDefined();
  });

  it("refuses a token naming another issuer", async () => {
    const token = await issuer.sign({ sub: "u" }, { issuer: "https://evil.example.org/realms/test" });
    expect(await refusal(verifier().verify(token))).toBe("TOKEN_ISSUER");
  });

  it("refuses a discovery document that names another issuer", async () => {
    const v = new OidcVerifier({ issuer: `${issuer.url}/`, audience: "jobsight" });
    expect(await refusal(v.verify(await issuer.sign({ sub: "u" }, { issuer: `${issuer.url}/` })))).toBe(
      "OIDC_DISCOVERY_FAILED",
    );
  });

  it("refuses an unsigned alg:none token before looking up any key", async () => {
    const token = `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: "admin", iss: issuer.url, aud: "jobsight", exp: now() + 300 })}.`;
    expect(await refusal(verifier().verify(token))).toBe("TOKEN_ALGORITHM");
    expect(issuer.hits).toEqual({ discovery: 0, jwks: 0 });
  });

  it("refuses HS256 signed with the issuer's public key bytes (algorithm confusion)", async () => {
    const pem = await exportSPKI(issuer.active.publicKey);
    for (const secret of [pem, JSON.stringify(issuer.active.publicJwk)]) {
      const input = `${b64({ alg: "HS256", typ: "JWT", kid: issuer.active.kid })}.${b64({ sub: "admin", iss: issuer.url, aud: "jobsight", exp: now() + 300 })}`;
      const token = `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
      expect(await refusal(verifier().verify(token))).toBe("TOKEN_ALGORITHM");
    }
  });

  it("never lets HS* or none into the allow-list", () => {
    for (const alg of ["HS256", "HS512", "none"]) {
      expect(() => verifier({ algorithms: ["RS256", alg] })).toThrow(SecurityConfigError);
    }
    expect(() => verifier({ audience: [] })).toThrow(SecurityConfigError);
  });

  it("refuses a token signed by a key the issuer never published", async () => {
    const v = verifier({ jwksCooldownMs: 0 });
    const stranger = await issuer.addKey("RS256", false);
    expect(await refusal(v.verify(await issuer.sign({ sub: "u" }, { key: stranger })))).toBe(
      "TOKEN_SIGNATURE",
    );
    // The same unknown key, claiming the published key's id: the signature check catches it.
    const forged = await issuer.sign({ sub: "u" }, { key: { ...stranger, kid: issuer.active.kid } });
    expect(await refusal(v.verify(forged))).toBe("TOKEN_SIGNATURE");
  });

  it("refuses malformed tokens", async () => {
    const v = verifier();
    const valid = await issuer.sign({ sub: "u" });
    const [h, p, s] = valid.split(".");
    for (const token of [
      "",
      "abc",
      "a.b.c",
      `${h}.${p}`,
      `${h}.!!!.${s}`,
      `${h}.${b64("text")}.${s}`,
      "x".repeat(20_000),
    ]) {
      expect([await refusal(v.verify(token))]).toContainEqual(
        expect.stringMatching(/TOKEN_MALFORMED|TOKEN_SIGNATURE/),
      );
    }
    expect(await refusal(v.verify("abc"))).toBe("TOKEN_MALFORMED");
    expect(await refusal(v.verify(`${h}.${p}.${s}x`))).toBe("TOKEN_SIGNATURE");
  });

  it("requires sub and exp", async () => {
    const v = verifier();
    const noSub = await issuer.sign({});
    expect(await refusal(v.verify(noSub))).toBe("TOKEN_CLAIMS");
    const noExp = await issuer.sign({ sub: "u", exp: undefined });
    expect(await refusal(v.verify(noExp))).toBe("TOKEN_CLAIMS");
  });

  it("reports discovery down, fails fast meanwhile, and recovers", async () => {
    issuer.failWith = 503;
    const v = verifier({ discoveryRetryMs: 60_000 });
    const token = await issuer.sign({ sub: "u" });
    expect(await refusal(v.verify(token))).toBe("OIDC_DISCOVERY_FAILED");
    expect(await refusal(v.verify(token))).toBe("OIDC_DISCOVERY_FAILED");

    const retrying = verifier({ discoveryRetryMs: 0 });
    expect(await refusal(retrying.verify(token))).toBe("OIDC_DISCOVERY_FAILED");
    issuer.failWith = undefined;
    await expect(retrying.verify(token)).resolves.toBeDefined();
  });

  it("reports an unreachable issuer", async () => {
    const token = await issuer.sign({ sub: "u" });
    await issuer.close();
    expect(await refusal(verifier({ httpTimeoutMs: 2000 }).verify(token))).toBe("OIDC_DISCOVERY_FAILED");
  });

  it("reports a JWKS that cannot be fetched", async () => {
    const v = verifier({ jwksUri: `${issuer.url}/missing-jwks` });
    expect(await refusal(v.verify(await issuer.sign({ sub: "u" })))).toBe("OIDC_DISCOVERY_FAILED");
    expect(issuer.hits.discovery).toBe(0);
  });

  it("answers 401 UNAUTHENTICATED naming the reason", async () => {
    const error = await verifier()
      .verify("abc")
      .catch((e: TokenError) => e);
    expect((error as TokenError).toApiError()).toEqual({
      code: "UNAUTHENTICATED",
      statusCode: 401,
      message: expect.any(String),
      errors: [{ path: "/headers/authorization", message: expect.stringMatching(/^TOKEN_MALFORMED: /) }],
    });
  });
});
