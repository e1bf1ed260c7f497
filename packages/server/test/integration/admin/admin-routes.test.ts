import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance, InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.js";
import { LocalObjectStore } from "../../../src/data-plane/objects/local-object-store.js";
import { jobRecord, openTestStorage, type StorageFixture } from "../storage-fixture.js";
import {
  bearer,
  collectorPrincipal,
  PRINCIPALS,
  type TestPrincipal,
  testServerConfig,
} from "../test-server-config.js";

// The operators' routes over real PostgreSQL: clusters (add, list, remove), API tokens (issue,
// use, list, revoke) and users, each refused to every role but a site-wide admin.

const admin: TestPrincipal = { token: "admin-site-token-00000000001", role: "admin", user: "root" };
const adminHpc1: TestPrincipal = {
  token: "admin-hpc1-token-00000000001",
  role: "admin",
  user: "root1",
  cluster: "hpc1",
};
const { alice, platform } = PRINCIPALS;
const collector = collectorPrincipal("hpc1");

describe("admin routes: clusters, tokens and users", () => {
  let fx: StorageFixture;
  let objectsDir: string;
  let objects: LocalObjectStore;
  let app: FastifyInstance;
  const logs: string[] = [];

  const call = (token: string, options: InjectOptions) =>
    app.inject({ ...options, headers: { ...bearer(token), ...(options.headers ?? {}) } });
  const as = (who: TestPrincipal, options: InjectOptions) => call(who.token, options);
  const register = (id: string) =>
    as(admin, {
      method: "POST",
      url: "/v1/clusters",
      payload: { id, name: `Cluster ${id}`, scheduler: "slurm" },
    });

  beforeAll(async () => {
    fx = await openTestStorage("admin_routes");
    objectsDir = await mkdtemp(join(tmpdir(), "jobsight-admin-"));
    objects = new LocalObjectStore({ dir: objectsDir });
    app = await buildApp({
      config: testServerConfig(objectsDir, [admin, adminHpc1, alice, PRINCIPALS.bob, platform, collector]),
      storage: fx.storage,
      objectStore: objects,
      logger: { level: "info", stream: { write: (line: string) => logs.push(line) } },
    });
  });

  afterAll(async () => {
    await app?.close();
    await objects?.close();
    await fx?.dispose();
    await rm(objectsDir, { recursive: true, force: true });
  });

  it("lets an admin add and list clusters (everything the platform role may)", async () => {
    for (const id of ["hpc1", "hpc2", "idle"]) expect((await register(id)).statusCode).toBe(201);
    const list = await as(admin, { method: "GET", url: "/v1/clusters" });
    expect(list.statusCode).toBe(200);
    expect(list.json().clusters.map((c: { id: string }) => c.id)).toEqual(["hpc1", "hpc2", "idle"]);
    const jobs = await as(collector, {
      method: "POST",
      url: "/v1/jobs",
      payload: {
        records: [
          jobRecord("hpc1", "1", "alice", 1),
          jobRecord("hpc1", "2", "alice", 2),
          jobRecord("hpc1", "3", "bob", 3),
        ],
      },
    });
    expect(jobs.json()).toMatchObject({ accepted: 3 });
  });

  it("refuses every admin route to researchers, platform and cluster-bound admins", async () => {
    const requests: InjectOptions[] = [
      { method: "DELETE", url: "/v1/clusters/idle" },
      { method: "GET", url: "/v1/tokens" },
      { method: "POST", url: "/v1/tokens", payload: { role: "researcher", user: "mallory" } },
      { method: "DELETE", url: "/v1/tokens/whatever" },
      { method: "GET", url: "/v1/users" },
    ];
    for (const who of [alice, platform, collector, adminHpc1]) {
      for (const request of requests) {
        const res = await as(who, request);
        expect(res.statusCode, `${who.role} ${request.method} ${request.url}`).toBe(403);
        expect(res.json().code).toBe("FORBIDDEN");
      }
    }
    expect((await as(admin, { method: "GET", url: "/v1/clusters" })).json().clusters).toHaveLength(3);
    expect((await as(admin, { method: "GET", url: "/v1/tokens" })).json()).toEqual({ tokens: [] });
  });

  it("refuses a token for an unregistered cluster with UNKNOWN_CLUSTER, naming the registered ones", async () => {
    const res = await as(admin, {
      method: "POST",
      url: "/v1/tokens",
      payload: { role: "researcher", user: "alice", cluster: "hpc9" },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      code: "UNKNOWN_CLUSTER",
      errors: [
        {
          path: "/cluster",
          message: expect.stringContaining("hpc9 is not a registered cluster (registered: hpc1, hpc2, idle)"),
        },
      ],
    });
    expect((await as(admin, { method: "GET", url: "/v1/tokens" })).json()).toEqual({ tokens: [] });
  });

  it("refuses tokens that cannot be scoped: a person's without a user, a machine's without a cluster, a bound admin", async () => {
    for (const [payload, path] of [
      [{ role: "researcher" }, "/user"],
      [{ role: "collector", user: "svc" }, "/cluster"],
      [{ role: "admin", user: "root2", cluster: "hpc1" }, "/cluster"],
      [{ role: "root", user: "x" }, "/role"],
      [{ role: "researcher", user: "alice", cluster: "HPC 1" }, "/cluster"],
    ] as const) {
      const res = await as(admin, { method: "POST", url: "/v1/tokens", payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code).toBe("VALIDATION_FAILED");
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
    }
  });

  it("issues a researcher token that works with its role and cluster scope only, shown once and never logged", async () => {
    const res = await as(admin, {
      method: "POST",
      url: "/v1/tokens",
      payload: { role: "researcher", user: "alice", cluster: "hpc1", label: "laptop" },
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers["cache-control"]).toBe("no-store");
    const { token, apiToken } = res.json();
    expect(token).toMatch(/^jst_[A-Za-z0-9_-]{43}$/);
    expect(apiToken).toMatchObject({
      role: "researcher",
      user: "alice",
      cluster: "hpc1",
      label: "laptop",
      prefix: token.slice(0, 12),
    });

    const own = await call(token, { method: "GET", url: "/v1/jobs?cluster=hpc1" });
    expect(own.statusCode).toBe(200);
    expect(
      own
        .json()
        .items.map((j: { jobId: string }) => j.jobId)
        .sort(),
    ).toEqual(["1", "2"]);
    expect((await call(token, { method: "GET", url: "/v1/jobs/3?cluster=hpc1" })).statusCode).toBe(404);
    expect((await call(token, { method: "GET", url: "/v1/jobs?cluster=hpc2" })).statusCode).toBe(403);
    expect((await call(token, { method: "GET", url: "/v1/clusters" })).statusCode).toBe(403);

    const listed = await as(admin, { method: "GET", url: "/v1/tokens" });
    expect(listed.body).not.toContain(token);
    expect(listed.json().tokens).toEqual([apiToken]);
    expect(logs.join("")).toContain(apiToken.id);
    expect(logs.join("")).not.toContain(token);
  });

  it("issues platform tokens scoped to a cluster, and admin tokens that can issue tokens themselves", async () => {
    const platformHpc2 = await as(admin, {
      method: "POST",
      url: "/v1/tokens",
      payload: { role: "platform", user: "ops2", cluster: "hpc2" },
    });
    const clusters = await call(platformHpc2.json().token, { method: "GET", url: "/v1/clusters" });
    expect(clusters.json().clusters.map((c: { id: string }) => c.id)).toEqual(["hpc2"]);
    expect((await call(platformHpc2.json().token, { method: "GET", url: "/v1/tokens" })).statusCode).toBe(
      403,
    );

    const second = await as(admin, {
      method: "POST",
      url: "/v1/tokens",
      payload: { role: "admin", user: "deputy" },
    });
    expect(second.statusCode).toBe(201);
    const byDeputy = await call(second.json().token, {
      method: "POST",
      url: "/v1/tokens",
      payload: { role: "collector", cluster: "idle", label: "node collectors" },
    });
    expect(byDeputy.statusCode).toBe(201);
    expect(byDeputy.json().apiToken).toMatchObject({ role: "collector", cluster: "idle" });
  });

  it("lists the users of jobs and live tokens, narrowed by cluster", async () => {
    const all = await as(admin, { method: "GET", url: "/v1/users" });
    expect(all.statusCode).toBe(200);
    expect(all.json().users).toEqual([
      {
        user: "alice",
        clusters: ["hpc1"],
        jobs: 2,
        lastSubmittedAt: "2026-12-01T00:02:00.000Z",
        liveTokens: 1,
        tokenRoles: ["researcher"],
      },
      {
        user: "bob",
        clusters: ["hpc1"],
        jobs: 1,
        lastSubmittedAt: "2026-12-01T00:03:00.000Z",
        liveTokens: 0,
        tokenRoles: [],
      },
      { user: "deputy", clusters: [], jobs: 0, liveTokens: 1, tokenRoles: ["admin"] },
      { user: "ops2", clusters: [], jobs: 0, liveTokens: 1, tokenRoles: ["platform"] },
    ]);
    const hpc2 = await as(admin, { method: "GET", url: "/v1/users?cluster=hpc2" });
    expect(hpc2.json().users.map((u: { user: string }) => u.user)).toEqual(["deputy", "ops2"]);
  });

  it("revokes a token by id: refused from the next request on; revoking again changes nothing", async () => {
    const issued = await as(admin, {
      method: "POST",
      url: "/v1/tokens",
      payload: { role: "researcher", user: "bob" },
    });
    const { token, apiToken } = issued.json();
    expect((await call(token, { method: "GET", url: "/v1/jobs" })).statusCode).toBe(200);
    const revoked = await as(admin, { method: "DELETE", url: `/v1/tokens/${apiToken.id}` });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ id: apiToken.id, revokedAt: expect.any(String) });
    expect((await call(token, { method: "GET", url: "/v1/jobs" })).statusCode).toBe(401);
    const again = await as(admin, { method: "DELETE", url: `/v1/tokens/${apiToken.id}` });
    expect(again.json().revokedAt).toBe(revoked.json().revokedAt);
    const unknown = await as(admin, { method: "DELETE", url: "/v1/tokens/no-such-token" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe("NOT_FOUND");
  });

  it("removes an idle cluster and revokes its tokens; refuses one with jobs unless forced, keeping the jobs", async () => {
    const collectorOfIdle = (await as(admin, { method: "GET", url: "/v1/tokens" }))
      .json()
      .tokens.find((t: { cluster?: string }) => t.cluster === "idle");
    const idle = await as(admin, { method: "DELETE", url: "/v1/clusters/idle" });
    expect(idle.statusCode).toBe(200);
    expect(idle.json()).toMatchObject({
      cluster: { id: "idle", scheduler: "slurm" },
      jobs: 0,
      revokedTokens: 1,
    });
    const tokens = (await as(admin, { method: "GET", url: "/v1/tokens" })).json().tokens;
    expect(tokens.find((t: { id: string }) => t.id === collectorOfIdle.id).revokedAt).toEqual(
      expect.any(String),
    );

    const busy = await as(admin, { method: "DELETE", url: "/v1/clusters/hpc1" });
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toMatchObject({ code: "CLUSTER_HAS_JOBS", errors: [{ path: "/query/force" }] });
    const forced = await as(admin, { method: "DELETE", url: "/v1/clusters/hpc1?force=true" });
    expect(forced.statusCode).toBe(200);
    // alice's researcher token was bound to hpc1.
    expect(forced.json()).toMatchObject({ jobs: 3, revokedTokens: 1 });
    expect(
      (await as(admin, { method: "GET", url: "/v1/clusters" }))
        .json()
        .clusters.map((c: { id: string }) => c.id),
    ).toEqual(["hpc2"]);
    expect((await as(platform, { method: "GET", url: "/v1/jobs?cluster=hpc1" })).json().items).toHaveLength(
      3,
    );

    const gone = await as(admin, { method: "DELETE", url: "/v1/clusters/hpc1" });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ code: "UNKNOWN_CLUSTER", errors: [{ path: "/params/clusterId" }] });
    const malformed = await as(admin, { method: "DELETE", url: "/v1/clusters/HPC%201" });
    expect(malformed.statusCode).toBe(400);
  });
});
