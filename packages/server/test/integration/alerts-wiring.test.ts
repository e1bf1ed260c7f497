import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UsageSample } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { parseServerConfig } from "../../src/config/parse-config.js";
import { openTestStorage, type StorageFixture } from "./storage-fixture.js";
import { bearer, collectorPrincipal, PRINCIPALS } from "./test-server-config.js";

const collector = collectorPrincipal("hpc1");
const { bob, platform } = PRINCIPALS;

describe("the server's own alert loop", () => {
  let fx: StorageFixture | undefined;
  let app: FastifyInstance | undefined;
  let chat: Server | undefined;
  let objects: string | undefined;

  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => (chat ? chat.close(resolve) : resolve(undefined)));
    await fx?.dispose();
    if (objects) await rm(objects, { recursive: true, force: true });
  });

  it("runs on the configured schedule and posts new alerts to the configured webhook", async () => {
    fx = await openTestStorage("alerts_wiring");
    objects = await mkdtemp(join(tmpdir(), "jobsight-alerts-wiring-"));
    const posts: { text: string }[] = [];
    chat = createServer((req, res) => {
      let data = "";
      req.on("data", (c) => {
        data += c;
      });
      req.on("end", () => {
        posts.push(JSON.parse(data));
        res.end();
      });
    });
    await new Promise<void>((resolve) => chat!.listen(0, "127.0.0.1", resolve));
    const { port } = chat.address() as AddressInfo;
    app = await buildApp({
      config: parseServerConfig({
        objectStore: { dir: objects },
        rateLimit: { enabled: false },
        http: { logLevel: "silent" },
        auth: { tokens: [bob, platform, collector] },
        alerts: { intervalSeconds: 5, webhook: { urls: [`http://127.0.0.1:${port}/hooks/ops`] } },
      }),
      storage: fx.storage,
    });
    const now = Date.now();
    const samples: UsageSample[] = Array.from({ length: 16 }, (_, i) => ({
      cluster: "hpc1",
      jobId: "b-etl",
      node: "cn-07",
      user: "bob",
      time: new Date(now - (15 - i) * 60_000).toISOString(),
      memory: { currentBytes: 6.5 * 2 ** 30 + i * 100 * 2 ** 20, limitBytes: 8 * 2 ** 30 },
    }));
    for (const [url, payload, token] of [
      ["/v1/clusters", { id: "hpc1", name: "hpc1", scheduler: "slurm" }, platform.token],
      ["/v1/usage", { idempotencyKey: "wiring-usage-0001", samples }, collector.token],
    ] as const) {
      const res = await app.inject({ method: "POST", url, payload, headers: bearer(token) });
      expect(res.statusCode, res.body).toBeLessThan(300);
    }
    // The first evaluation comes one interval after the start.
    const deadline = Date.now() + 20_000;
    while (posts.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(posts.map((p) => p.text.split(":")[0])).toEqual([
      "[CRITICAL] memory-near-limit on job b-etl (hpc1, bob)",
    ]);
    const res = await app.inject({ method: "GET", url: "/v1/alerts", headers: bearer(bob.token) });
    expect(res.json().alerts.map((a: { rule: string; state: string }) => [a.rule, a.state])).toEqual([
      ["memory-near-limit", "firing"],
    ]);
  });
});
