import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { ApiTokens, generateApiToken } from "../../../src/platform/identity/api-tokens.js";
import { tokenCommand } from "../../../src/platform/identity/token-command.js";
import { jobRecord, openTestStorage, type StorageFixture } from "../storage-fixture.js";

// `jobsight-server token …` against a real PostgreSQL, and the issued token used on the real
// server: created → accepted with its role and cluster → revoked → refused on the next request.

describe("jobsight-server token", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let objects: string;
  let tokens: ApiTokens;

  const run = async (args: string[]) => {
    let out = "";
    let err = "";
    const code = await tokenCommand(args, tokens, { out: (t) => (out += t), err: (t) => (err += t) });
    return { code, out, err };
  };

  beforeAll(async () => {
    fx = await openTestStorage("token_command");
    objects = await mkdtemp(join(tmpdir(), "jobsight-token-"));
    const config = parseServerConfig({ objectStore: { dir: objects }, http: { logLevel: "silent" } });
    app = await buildApp({ config, storage: fx.storage });
    tokens = new ApiTokens(fx.storage.tokens);
  });

  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
    if (objects) await rm(objects, { recursive: true, force: true });
  });

  it("issues a collector token that ingests only into its cluster, then revokes it", async () => {
    const created = await run(["create", "--role", "collector", "--cluster", "hpc1", "--label", "rack 4"]);
    expect(created.code).toBe(0);
    const token = created.out.trim();
    expect(token.length).toBeGreaterThan(20);
    expect(created.err).toMatch(/created; it is shown only this once/);

    const post = (cluster: string) =>
      app.inject({
        method: "POST",
        url: "/v1/jobs",
        headers: { authorization: `Bearer ${token}` },
        payload: { records: [jobRecord(cluster, "7", "alice", 1)] },
      });
    expect((await post("hpc1")).statusCode).toBe(200);
    expect((await post("hpc2")).statusCode).toBe(403);

    const listed = await run(["list", "--json"]);
    const entry = JSON.parse(listed.out).find((t: { label?: string }) => t.label === "rack 4");
    expect(entry).toMatchObject({ role: "collector", cluster: "hpc1" });
    expect(listed.out).not.toContain(token);

    const revoked = await run(["revoke", entry.id]);
    expect(revoked.code).toBe(0);
    expect((await post("hpc1")).statusCode).toBe(401);
    // Revoking twice says so and fails.
    expect((await run(["revoke", entry.id])).code).toBe(1);
  });

  it("refuses a create without role or cluster, or with a role it cannot issue", async () => {
    const missing = await run(["create", "--role", "collector"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/--role and --cluster are required/);
    const badRole = await run(["create", "--role", "emperor", "--cluster", "hpc1"]);
    expect(badRole.code).toBe(2);
    expect(badRole.err).toMatch(/role/);
    expect(badRole.out).toBe("");
  });

  it("refuses a malformed or unregistered cluster with a clear error, and creates nothing", async () => {
    const before = (await tokens.list()).length;
    const malformed = await run(["create", "--role", "collector", "--cluster", "HPC 1"]);
    expect(malformed.code).toBe(2);
    expect(malformed.err).toMatch(/^\/cluster: "HPC 1" is not a cluster id: /);
    const registered = new ApiTokens(fx.storage.tokens, { clusters: fx.storage.clusters });
    let err = "";
    const create = (cluster: string) =>
      tokenCommand(["create", "--role", "scheduler", "--cluster", cluster], registered, {
        out: () => {},
        err: (t) => (err += t),
      });
    expect(await create("hpc7")).toBe(2);
    expect(err).toMatch(/\/cluster: hpc7 is not a registered cluster/);
    expect((await tokens.list()).length).toBe(before);
    await fx.storage.clusters.register({ id: "hpc7", name: "HPC 7", scheduler: "slurm" });
    expect(await create("hpc7")).toBe(0);
  });

  it("lists every stored token, those created without the command too", async () => {
    const { tokenSha256 } = generateApiToken();
    await fx.storage.tokens.insert({
      id: "site-ops",
      tokenSha256,
      role: "platform",
      user: "ops",
      createdAt: new Date(),
    });
    const listed = await run(["list"]);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/^site-ops {2}- {2}platform {2}all {2}live {2}$/m);
  });
});
