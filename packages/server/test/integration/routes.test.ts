import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validators } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { parseServerConfig } from "../../src/config/parse-config.js";
import { generateApiToken } from "../../src/platform/identity/api-tokens.js";
import { jobRecord, openTestStorage, type StorageFixture, usageSample } from "./storage-fixture.js";

const TOKENS = {
  alice: "researcher-alice-token-000001",
  bob: "researcher-bob-token-00000001",
  collector: "collector-hpc1-token-0000001",
  platform: "platform-site-token-000000001",
  platformHpc2: "platform-hpc2-token-00000001",
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("REST routes over real storage", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let objects: string;

  beforeAll(async () => {
    fx = await openTestStorage("routes");
    objects = await mkdtemp(join(tmpdir(), "jobsight-objects-"));
    const config = parseServerConfig({
      objectStore: { dir: objects },
      rateLimit: { requestsPerSecond: 1, burst: 1000 },
      http: { logLevel: "silent" },
      auth: {
        tokens: [
          { token: TOKENS.alice, role: "researcher", user: "alice" },
          { token: TOKENS.bob, role: "researcher", user: "bob" },
          { token: TOKENS.collector, role: "collector", user: "svc-collector", cluster: "hpc1" },
          { token: TOKENS.platform, role: "platform", user: "ops" },
          { token: TOKENS.platformHpc2, role: "platform", user: "ops2", cluster: "hpc2" },
        ],
      },
    });
    app = await buildApp({ config, storage: fx.storage });
    const ended = (jobId: string, user: string) =>
      jobRecord("hpc1", jobId, user, Number(jobId), {
        phase: "ended",
        endedAt: "2026-12-01T12:00:00Z",
        outcome: { state: "COMPLETED" },
      });
    const res = await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: bearer(TOKENS.collector),
      payload: { records: [ended("1", "alice"), ended("2", "alice"), ended("3", "bob")] },
    });
    expect(res.json()).toEqual({ accepted: 3, duplicates: 0 });
  });

  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
    await rm(objects, { recursive: true, force: true });
  });

  it("answers health without a token and readiness with storage checks", async () => {
    expect((await app.inject({ url: "/healthz" })).json()).toMatchObject({ status: "ok" });
    const ready = await app.inject({ url: "/readyz" });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks).toEqual({ postgres: "ok", objectStore: "ok", storage: "plain" });
  });

  it("refuses every other route without a token", async () => {
    for (const url of ["/v1/jobs", "/v1/jobs/1", "/v1/clusters", "/v1/accuracy"]) {
      expect((await app.inject({ url })).statusCode).toBe(401);
    }
  });

  it("names every offending field of an ingest batch without a valid item and stores none of it", async () => {
    const good = usageSample("hpc1", "1", "n1", 0, 10);
    const res = await app.inject({
      method: "POST",
      url: "/v1/usage",
      headers: bearer(TOKENS.collector),
      payload: {
        idempotencyKey: "batch-0001",
        samples: [
          { ...good, node: "" },
          { ...good, time: "yesterday", memory: { currentBytes: -1 } },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(
      res
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(["/samples/0/node", "/samples/1/memory/currentBytes", "/samples/1/time"]);
    expect((await fx.storage.samples.series("hpc1", "1")).samples).toEqual([]);
  });

  it("shows researchers only their own jobs", async () => {
    const list = await app.inject({ url: "/v1/jobs?cluster=hpc1", headers: bearer(TOKENS.alice) });
    expect(
      list
        .json()
        .items.map((j: { jobId: string }) => j.jobId)
        .sort(),
    ).toEqual(["1", "2"]);
    expect(validators.JobRecord.check(list.json().items[0])).toBe(true);
    const asBob = await app.inject({ url: "/v1/jobs?user=alice", headers: bearer(TOKENS.bob) });
    expect(asBob.json()).toEqual({ items: [], nextCursor: null });
    expect((await app.inject({ url: "/v1/jobs/1", headers: bearer(TOKENS.alice) })).json().jobId).toBe("1");
    for (const url of ["/v1/jobs/1", "/v1/jobs/1/usage", "/v1/jobs/1/events"]) {
      const res = await app.inject({ url, headers: bearer(TOKENS.bob) });
      expect(res.json()).toMatchObject({ code: "NOT_FOUND", statusCode: 404 });
    }
  });

  it("lets a collector write only to its own cluster, and read nothing", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/v1/usage",
      headers: bearer(TOKENS.collector),
      payload: {
        idempotencyKey: "batch-0002",
        samples: [usageSample("hpc1", "1", "n1", 0, 10), usageSample("hpc2", "9", "n1", 0, 10)],
      },
    });
    expect(res.json()).toMatchObject({ code: "FORBIDDEN", errors: [{ path: "/samples/1/cluster" }] });
    expect((await app.inject({ url: "/v1/jobs", headers: bearer(TOKENS.collector) })).statusCode).toBe(403);
    expect(
      (await app.inject({ url: "/v1/jobs/1/usage", headers: bearer(TOKENS.collector) })).statusCode,
    ).toBe(403);
  });

  it("serves a job's samples and events to its owner once ingested", async () => {
    const samples = [0, 30, 60].map((s) => usageSample("hpc1", "2", "n1", s, 100 + s));
    const ingest = await app.inject({
      method: "POST",
      url: "/v1/usage",
      headers: bearer(TOKENS.collector),
      payload: { idempotencyKey: "batch-0003", samples },
    });
    expect(ingest.json()).toEqual({ accepted: 3, duplicates: 0 });
    const series = await app.inject({
      url: "/v1/jobs/2/usage?stepSeconds=60",
      headers: bearer(TOKENS.alice),
    });
    expect(series.json()).toMatchObject({ cluster: "hpc1", jobId: "2", stepSeconds: 60 });
    expect(series.json().samples).toHaveLength(2);
    const events = await app.inject({
      method: "POST",
      url: "/v1/events",
      headers: bearer(TOKENS.collector),
      payload: {
        events: [
          {
            cluster: "hpc1",
            node: "n1",
            time: "2026-12-01T10:00:30Z",
            kind: "oom_kill",
            jobId: "2",
            oomKill: { pid: 7, processName: "python" },
            message: "Out of memory: Killed process 7 (python)",
          },
        ],
      },
    });
    expect(events.json()).toEqual({ accepted: 1, duplicates: 0 });
    const read = await app.inject({ url: "/v1/jobs/2/events", headers: bearer(TOKENS.alice) });
    expect(read.json().events).toHaveLength(1);
  });

  it("keeps a cluster-bound platform token to its cluster", async () => {
    expect(
      (await app.inject({ url: "/v1/jobs", headers: bearer(TOKENS.platformHpc2) })).json().items,
    ).toEqual([]);
    const other = await app.inject({ url: "/v1/jobs?cluster=hpc1", headers: bearer(TOKENS.platformHpc2) });
    expect(other.json()).toMatchObject({ code: "FORBIDDEN", errors: [{ path: "/query/cluster" }] });
    expect(
      (await app.inject({ url: "/v1/jobs", headers: bearer(TOKENS.platform) })).json().items,
    ).toHaveLength(3);
  });

  it("stores artifacts once by content and shows them only to whom they belong", async () => {
    const script = Buffer.from("#!/bin/bash\n#SBATCH --mem=4G\nsrun python train.py\n");
    const sha256 = createHash("sha256").update(script).digest("hex");
    const put = () =>
      app.inject({
        method: "PUT",
        url: "/v1/artifacts?kind=script&cluster=hpc1&jobId=1",
        headers: { ...bearer(TOKENS.collector), "content-type": "text/x-shellscript" },
        payload: script,
      });
    const first = await put();
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      sha256,
      kind: "script",
      sizeBytes: script.length,
      contentType: "text/x-shellscript",
      jobId: "1",
    });
    expect((await put()).json().sha256).toBe(sha256);
    const owner = await app.inject({ url: `/v1/artifacts/${sha256}`, headers: bearer(TOKENS.alice) });
    expect(owner.statusCode).toBe(200);
    expect(owner.headers["content-type"]).toContain("text/x-shellscript");
    expect(owner.rawPayload.equals(script)).toBe(true);
    expect(
      (await app.inject({ url: `/v1/artifacts/${sha256}`, headers: bearer(TOKENS.bob) })).statusCode,
    ).toBe(404);
    expect(
      (await app.inject({ url: `/v1/artifacts/${sha256}`, headers: bearer(TOKENS.platform) })).statusCode,
    ).toBe(200);
    const wrongCluster = await app.inject({
      method: "PUT",
      url: "/v1/artifacts?kind=log&cluster=hpc2",
      headers: { ...bearer(TOKENS.collector), "content-type": "application/json" },
      payload: '{"not": "parsed"}',
    });
    expect(wrongCluster.statusCode).toBe(403);
  });

  it("registers and lists clusters (platform only)", async () => {
    const created = await app.inject({
      method: "POST",
      url: "/v1/clusters",
      headers: bearer(TOKENS.platform),
      payload: { id: "hpc1", name: "HPC one", scheduler: "slurm" },
    });
    expect(created.statusCode).toBe(201);
    expect(validators.Cluster.check(created.json())).toBe(true);
    expect(
      (await app.inject({ url: "/v1/clusters", headers: bearer(TOKENS.platform) })).json().clusters,
    ).toHaveLength(1);
    expect((await app.inject({ url: "/v1/clusters", headers: bearer(TOKENS.alice) })).statusCode).toBe(403);
  });

  it("answers 501 for the routes the intelligence plane will serve", async () => {
    const res = await app.inject({ method: "GET", url: "/v1/policy", headers: bearer(TOKENS.platform) });
    expect(res.json()).toMatchObject({ code: "NOT_IMPLEMENTED", statusCode: 501 });
  });

  it("rate-limits per token with 429 and Retry-After", async () => {
    const limited = await buildApp({
      config: parseServerConfig({
        objectStore: { dir: objects },
        rateLimit: { requestsPerSecond: 1, burst: 3 },
        http: { logLevel: "silent" },
        auth: { tokens: [{ token: TOKENS.alice, role: "researcher", user: "alice" }] },
      }),
      storage: fx.storage,
    });
    try {
      const codes = [];
      for (let i = 0; i < 5; i++)
        codes.push((await limited.inject({ url: "/v1/jobs", headers: bearer(TOKENS.alice) })).statusCode);
      expect(codes).toEqual([200, 200, 200, 429, 429]);
      const res = await limited.inject({ url: "/v1/jobs", headers: bearer(TOKENS.alice) });
      expect(res.headers["retry-after"]).toBe("1");
    } finally {
      await limited.close();
    }
  });

  it("accepts tokens created in the database, until revoked", async () => {
    const { token, prefix, tokenSha256 } = generateApiToken();
    await fx.storage.tokens.insert({
      id: "db-researcher",
      prefix,
      tokenSha256,
      role: "researcher",
      user: "alice",
      createdAt: new Date(),
    });
    expect((await app.inject({ url: "/v1/jobs", headers: bearer(token) })).statusCode).toBe(200);
    expect(await fx.storage.tokens.revoke("db-researcher", new Date())).toBe(true);
    // The next request, on the same server.
    expect((await app.inject({ url: "/v1/jobs", headers: bearer(token) })).statusCode).toBe(401);
  });
});
