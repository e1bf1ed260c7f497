import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AlertList, compileValidator, type JobRecord, type UsageSample } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { parseServerConfig } from "../../src/config/parse-config.js";
import { AlertMonitor } from "../../src/intelligence/alerts/alert-monitor.js";
import { WebhookChannel } from "../../src/intelligence/alerts/channels/webhook-channel.js";
import { openTestStorage, type StorageFixture } from "./storage-fixture.js";
import { bearer, collectorPrincipal, PRINCIPALS } from "./test-server-config.js";

const { alice, bob, platform } = PRINCIPALS;
const collector = collectorPrincipal("hpc1");
const GiB = 2 ** 30;
const MiB = 2 ** 20;
const validList = compileValidator(AlertList);

// Samples are stamped relative to the real clock: the loop judges what is running now.
const NOW = Date.now();
const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();

function running(jobId: string, user: string, requested: JobRecord["spec"]["requested"]): JobRecord {
  return {
    cluster: "hpc1",
    jobId,
    phase: "started",
    source: "slurm-controller",
    spec: { cluster: "hpc1", scheduler: "slurm", user, requested },
    submittedAt: minutesAgo(50),
    startedAt: minutesAgo(45),
  };
}

/** Alice's training job: two GPUs at 1% for 40 minutes, four of its eight cores busy. */
const aliceSamples: UsageSample[] = Array.from({ length: 41 }, (_, i) => ({
  cluster: "hpc1",
  jobId: "a-train",
  node: "gpu-01",
  time: minutesAgo(40 - i),
  memory: { currentBytes: 4 * GiB, limitBytes: 32 * GiB },
  cpu: { usageSeconds: 100 + i * 60 * 4, userSeconds: 90 + i * 60 * 4 },
  gpus: [0, 1].map((index) => ({ index, utilizationPercent: 1, memoryUsedBytes: GiB })),
}));

/** Bob's job: 100 MiB more memory every minute, 7.96 of its 8 GiB now. */
const bobSamples: UsageSample[] = Array.from({ length: 16 }, (_, i) => ({
  cluster: "hpc1",
  jobId: "b-etl",
  node: "cn-07",
  time: minutesAgo(15 - i),
  memory: { currentBytes: 6.5 * GiB + i * 100 * MiB, limitBytes: 8 * GiB },
}));

describe("live alerts over the REST API", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let objects: string;
  let chat: Server;
  const posts: { text: string }[] = [];
  let monitor: AlertMonitor;

  const get = async (who: { token: string }, url: string) => {
    const res = await app.inject({ method: "GET", url, headers: bearer(who.token) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(validList.validate(body).ok).toBe(true);
    return body as AlertList;
  };
  const post = async (url: string, payload: unknown, token = collector.token) => {
    const res = await app.inject({ method: "POST", url, payload: payload as object, headers: bearer(token) });
    expect(res.statusCode, res.body).toBeLessThan(300);
  };

  beforeAll(async () => {
    fx = await openTestStorage("alerts");
    objects = await mkdtemp(join(tmpdir(), "jobsight-alerts-"));
    chat = createServer((req, res) => {
      let data = "";
      req.on("data", (c) => {
        data += c;
      });
      req.on("end", () => {
        posts.push(JSON.parse(data));
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => chat.listen(0, "127.0.0.1", resolve));
    const config = parseServerConfig({
      objectStore: { dir: objects },
      rateLimit: { enabled: false },
      http: { logLevel: "silent" },
      auth: { tokens: [alice, bob, platform, collector] },
      // The test runs its own evaluations, when it wants them.
      alerts: { enabled: false },
    });
    app = await buildApp({ config, storage: fx.storage });
    const { port } = chat.address() as AddressInfo;
    monitor = new AlertMonitor({
      storage: fx.storage,
      webhook: new WebhookChannel({ urls: [`http://127.0.0.1:${port}/hooks/alerts`] }),
    });
    await post("/v1/clusters", { id: "hpc1", name: "hpc1", scheduler: "slurm" }, platform.token);
    await post("/v1/jobs", {
      records: [
        running("a-train", "alice", { cores: 8, gpus: 2, memoryBytes: 32 * GiB }),
        running("b-etl", "bob", { cores: 1, memoryBytes: 8 * GiB }),
      ],
    });
    await post("/v1/usage", {
      idempotencyKey: "alerts-usage-000001",
      samples: [...aliceSamples, ...bobSamples],
    });
  });

  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => chat?.close(resolve));
    await fx?.dispose();
    if (objects) await rm(objects, { recursive: true, force: true });
  });

  it("fires from the ingested samples, and shows each researcher only their own jobs' alerts", async () => {
    const report = await monitor.evaluate();
    expect(report).toMatchObject({
      evaluated: true,
      jobs: 2,
      firing: 2,
      created: 2,
      resolved: 0,
      truncated: false,
    });

    const mine = await get(alice, "/v1/alerts");
    expect(mine.alerts.map((a) => [a.jobId, a.user, a.rule, a.severity, a.state])).toEqual([
      ["a-train", "alice", "gpus-idle", "warning", "firing"],
    ]);
    expect(mine.alerts[0].evidence.map((e) => [e.source, e.field, e.node, e.gpuIndex])).toEqual([
      ["nvidia-smi", "utilization.gpu", "gpu-01", 0],
      ["nvidia-smi", "utilization.gpu", "gpu-01", 1],
    ]);

    const bobs = await get(bob, "/v1/alerts?state=firing");
    expect(bobs.alerts.map((a) => [a.jobId, a.rule, a.severity])).toEqual([
      ["b-etl", "memory-near-limit", "critical"],
    ]);
    const projected = Date.parse(bobs.alerts[0].projectedAt!);
    // 40 MiB left at 100 MiB/min: the limit about 24 s after the last sample.
    expect(projected - Date.parse(minutesAgo(0))).toBeGreaterThan(20_000);
    expect(projected - Date.parse(minutesAgo(0))).toBeLessThan(30_000);
    expect(bobs.alerts[0].evidence[0]).toMatchObject({ source: "cgroup:memory.current", node: "cn-07" });

    // Another researcher's alerts are out of reach, even when asked for by name.
    expect((await get(bob, "/v1/alerts?user=alice")).alerts).toEqual([]);
    const all = await get(platform, "/v1/alerts?cluster=hpc1");
    expect(all.alerts.map((a) => a.jobId).sort()).toEqual(["a-train", "b-etl"]);
    expect((await get(platform, "/v1/alerts?user=alice")).alerts.map((a) => a.jobId)).toEqual(["a-train"]);
  });

  it("keeps one alert per job and rule across evaluations, and tells the webhook once", async () => {
    const before = (await get(platform, "/v1/alerts")).alerts;
    const report = await monitor.evaluate();
    expect(report).toMatchObject({ firing: 2, created: 0, delivery: { sent: 0, failed: 0, deferred: 0 } });
    const after = (await get(platform, "/v1/alerts")).alerts;
    expect(after.map((a) => a.id).sort()).toEqual(before.map((a) => a.id).sort());
    for (const a of after) {
      const was = before.find((b) => b.id === a.id)!;
      expect(a.firstSeen).toBe(was.firstSeen);
      expect(Date.parse(a.lastSeen)).toBeGreaterThan(Date.parse(was.lastSeen));
    }
    const { rows } = await fx.storage.pool.query("SELECT count(*)::int AS n FROM alerts");
    expect(rows[0].n).toBe(2);
    expect(posts.map((p) => p.text.split(":")[0]).sort()).toEqual([
      "[CRITICAL] memory-near-limit on job b-etl (hpc1, bob)",
      "[WARNING] gpus-idle on job a-train (hpc1, alice)",
    ]);
  });

  it("resolves an alert when its job ends, and does not tell the webhook again", async () => {
    await post("/v1/jobs", {
      records: [
        { ...running("a-train", "alice", { cores: 8, gpus: 2 }), phase: "ended", endedAt: minutesAgo(0) },
      ],
    });
    const report = await monitor.evaluate();
    expect(report).toMatchObject({ jobs: 1, firing: 1, created: 0, resolved: 1 });
    const resolved = await get(alice, "/v1/alerts?state=resolved");
    expect(resolved.alerts.map((a) => [a.jobId, a.rule, a.state])).toEqual([
      ["a-train", "gpus-idle", "resolved"],
    ]);
    expect(resolved.alerts[0].resolvedAt).toBeDefined();
    expect((await get(alice, "/v1/alerts?state=firing")).alerts).toEqual([]);
    expect(posts).toHaveLength(2);
  });

  it("refuses a collector token, which reads no alerts", async () => {
    const res = await app.inject({ method: "GET", url: "/v1/alerts", headers: bearer(collector.token) });
    expect(res.statusCode).toBe(403);
  });
});
