import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { LocalOidcIssuer } from "../../../src/platform/test-support/local-oidc-issuer.js";
import { jobRecord, openTestStorage, type StorageFixture } from "../storage-fixture.js";

// OIDC sign-in wired into the server: a real issuer on 127.0.0.1 (discovery + JWKS), the OIDC
// section of the configuration, and real requests through buildApp().inject().

const CONFIG_TOKEN = "platform-config-token-000001";

describe("OIDC sign-in through the server", () => {
  let fx: StorageFixture;
  let issuer: LocalOidcIssuer;
  let app: FastifyInstance;
  let objects: string;

  const get = (token: string | undefined, url = "/v1/jobs") =>
    app.inject({ method: "GET", url, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const reasonOf = (body: { errors?: { message: string }[] }) => body.errors?.[0]?.message.split(":")[0];

  beforeAll(async () => {
    fx = await openTestStorage("oidc_sign_in");
    issuer = await LocalOidcIssuer.start();
    objects = await mkdtemp(join(tmpdir(), "jobsight-oidc-"));
    const config = parseServerConfig({
      objectStore: { dir: objects },
      http: { logLevel: "silent" },
      auth: { tokens: [{ token: CONFIG_TOKEN, role: "platform", user: "ops" }] },
      oidc: {
        issuer: issuer.url,
        audience: "jobsight",
        algorithms: ["RS256", "ES256"],
        clockToleranceSeconds: 5,
        jwksCooldownSeconds: 0,
        claims: { user: "preferred_username", groups: "groups" },
        groupGrants: {
          "hpc-users": { roles: ["researcher"] },
          "hpc-admins": { roles: ["platform"], clusters: ["hpc1"] },
        },
      },
    });
    app = await buildApp({ config, storage: fx.storage });
    const ingest = await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: { authorization: `Bearer ${CONFIG_TOKEN}` },
      payload: { records: [jobRecord("hpc1", "101", "alice", 1), jobRecord("hpc1", "102", "bob", 2)] },
    });
    expect(ingest.statusCode).toBe(200);
  });

  afterAll(async () => {
    await app?.close();
    await issuer?.close();
    await fx?.dispose();
    if (objects) await rm(objects, { recursive: true, force: true });
  });

  it("lets a valid token in as the user and role its claims name", async () => {
    const token = await issuer.sign({ sub: "u-alice", preferred_username: "alice", groups: ["hpc-users"] });
    const res = await get(token);
    expect(res.statusCode).toBe(200);
    // A researcher sees only the jobs of the user the token's user claim names.
    expect(res.json().items.map((j: { jobId: string }) => j.jobId)).toEqual(["101"]);
    // Researchers may not register clusters: the OIDC role is what the route table checks.
    const refused = await app.inject({
      method: "POST",
      url: "/v1/clusters",
      headers: { authorization: `Bearer ${token}` },
      payload: { id: "hpc9", name: "x", scheduler: "slurm" },
    });
    expect(refused.statusCode).toBe(403);
  });

  it("keeps accepting the configured API tokens beside OIDC", async () => {
    expect((await get(CONFIG_TOKEN)).statusCode).toBe(200);
  });

  it("follows a key rotation: a token of the new key is accepted, a retired key's is refused", async () => {
    const old = issuer.active;
    const fresh = await issuer.rotate("ES256");
    issuer.retire(old);
    const token = await issuer.sign({ sub: "u-bob", preferred_username: "bob", groups: ["hpc-users"] });
    expect((await get(token)).statusCode).toBe(200);
    const withOld = await issuer.sign({ sub: "u-bob", groups: ["hpc-users"] }, { key: old });
    const res = await get(withOld);
    expect(res.statusCode).toBe(401);
    expect(reasonOf(res.json())).toBe("TOKEN_SIGNATURE");
    expect(fresh.kid).not.toBe(old.kid);
  });

  it.each([
    [
      "an expired token",
      "TOKEN_EXPIRED",
      () => issuer.sign({ sub: "u1", groups: ["hpc-users"] }, { expiresInSeconds: -120 }),
    ],
    [
      "a wrong audience",
      "TOKEN_AUDIENCE",
      () => issuer.sign({ sub: "u1", groups: ["hpc-users"] }, { audience: "grafana" }),
    ],
    [
      "another issuer",
      "TOKEN_ISSUER",
      () => issuer.sign({ sub: "u1", groups: ["hpc-users"] }, { issuer: "https://evil.example" }),
    ],
    ["alg none", "TOKEN_ALGORITHM", async () => unsignedToken(issuer.url)],
    [
      "a key the issuer never published",
      "TOKEN_SIGNATURE",
      async () =>
        issuer.sign({ sub: "u1", groups: ["hpc-users"] }, { key: await issuer.addKey("RS256", false) }),
    ],
  ])("refuses %s with 401 and the reason %s", async (_name, reason, makeToken) => {
    const res = await get(await makeToken());
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.code).toBe("UNAUTHENTICATED");
    expect(reasonOf(body)).toBe(reason);
  });

  it("answers 403 to a signed-in user whose groups grant no role", async () => {
    const token = await issuer.sign({ sub: "u-eve", preferred_username: "eve", groups: ["students"] });
    const res = await get(token);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/no Jobsight role/);
  });

  it("refuses a token without the user claim with 401 TOKEN_NO_USER rather than act as its subject", async () => {
    // The subject is the name of another user: acting under it would show bob's jobs.
    const res = await get(await issuer.sign({ sub: "bob", groups: ["hpc-users"] }));
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe("UNAUTHENTICATED");
    expect(reasonOf(res.json())).toBe("TOKEN_NO_USER");
  });

  it("lets a clusters claim narrow the group's clusters, never add one", async () => {
    const admin = (clusters: string[]) =>
      issuer.sign({
        sub: "u-ann",
        preferred_username: "ann",
        groups: ["hpc-admins"],
        jobsight_clusters: clusters,
      });
    // hpc-admins grants hpc1 only: a claim naming hpc2 gains nothing.
    const widened = await get(await admin(["hpc2"]), "/v1/jobs?cluster=hpc2");
    expect(widened.statusCode).toBe(403);
    const both = await get(await admin(["hpc1", "hpc2"]), "/v1/jobs?cluster=hpc2");
    expect(both.statusCode).toBe(403);
    expect(both.json().errors).toEqual([{ path: "/query/cluster", message: "must be hpc1 for this token" }]);
    expect((await get(await admin(["hpc1", "hpc2"]))).json().items).toHaveLength(2);
  });

  it("leaves health unauthenticated", async () => {
    expect((await get(undefined, "/healthz")).statusCode).toBe(200);
  });
});

function unsignedToken(iss: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: "none", typ: "JWT" })}.${part({ sub: "u1", iss, aud: "jobsight", exp: now + 300, groups: ["hpc-users"] })}.`;
}
