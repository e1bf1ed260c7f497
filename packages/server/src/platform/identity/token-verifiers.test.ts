import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForbiddenError } from "../../errors.js";
import { LocalOidcIssuer } from "../test-support/local-oidc-issuer.js";
import { OidcVerifier } from "./oidc-verifier.js";
import { TokenError } from "./token-error.js";
import { oidcTokenVerifier, toPrincipal } from "./token-verifiers.js";
import type { VerifiedIdentity } from "./verified-identity.js";

const p = (over: Partial<VerifiedIdentity>): VerifiedIdentity => ({
  subject: "u1",
  user: "alice",
  roles: ["researcher"],
  clusters: "all",
  source: "oidc",
  ...over,
});

describe("toPrincipal", () => {
  it("keeps the furthest-reaching role and one cluster or all", () => {
    expect(toPrincipal(p({ roles: ["researcher", "platform"], clusters: ["hpc1"] }))).toEqual({
      role: "platform",
      user: "alice",
      cluster: "hpc1",
      tokenId: "oidc:u1",
      via: "oidc",
    });
    expect(toPrincipal(p({}))).not.toHaveProperty("cluster");
  });

  it("refuses an identity without a user name with 401 TOKEN_NO_USER instead of acting as its subject", () => {
    const error = (() => {
      try {
        toPrincipal(p({ user: undefined }));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(TokenError);
    expect(error).toMatchObject({ reason: "TOKEN_NO_USER", statusCode: 401, code: "UNAUTHENTICATED" });
  });

  it("refuses what it cannot hold without widening access", () => {
    expect(() => toPrincipal(p({ roles: [] }))).toThrow(ForbiddenError);
    expect(() => toPrincipal(p({ clusters: [] }))).toThrow(ForbiddenError);
    expect(() => toPrincipal(p({ clusters: ["a", "b"] }))).toThrow(ForbiddenError);
  });
});

describe("oidcTokenVerifier", () => {
  let issuer: LocalOidcIssuer;
  beforeAll(async () => {
    issuer = await LocalOidcIssuer.start();
  });
  afterAll(async () => {
    await issuer.close();
  });

  it("decides JWTs and leaves other tokens to other verifiers", async () => {
    const verifier = oidcTokenVerifier(
      new OidcVerifier({
        issuer: issuer.url,
        audience: "jobsight",
        claims: { groupGrants: { users: { roles: ["researcher"] } } },
      }),
    );
    const token = await issuer.sign({ sub: "u9", preferred_username: "zoe", groups: ["users"] });
    await expect(verifier.verify(token)).resolves.toEqual({
      role: "researcher",
      user: "zoe",
      tokenId: "oidc:u9",
      via: "oidc",
    });
    await expect(verifier.verify("jst_not-a-jwt")).resolves.toBeUndefined();
    const noUser = await issuer.sign({ sub: "u9", groups: ["users"] });
    await expect(verifier.verify(noUser)).rejects.toMatchObject({ reason: "TOKEN_NO_USER" });
    await expect(
      verifier.verify(await issuer.sign({ sub: "u" }, { expiresInSeconds: -600 })),
    ).rejects.toThrow(TokenError);
  });

  it("lets the subject be the user only when the configuration names `sub` as the user claim", async () => {
    const verifier = oidcTokenVerifier(
      new OidcVerifier({
        issuer: issuer.url,
        audience: "jobsight",
        claims: { userClaim: "sub", groupGrants: { users: { roles: ["researcher"] } } },
      }),
    );
    const token = await issuer.sign({ sub: "u9", groups: ["users"] });
    await expect(verifier.verify(token)).resolves.toMatchObject({ role: "researcher", user: "u9" });
  });
});
