import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { jobRecord, openTestStorage, type StorageFixture } from "../storage-fixture.js";

// GET /metrics of the running server: Prometheus text a scraper can read, counting what the
// server answered, for the platform role only, with no user, job or token in any label.

const T = {
  platform: "platform-metrics-token-000001",
  alice: "researcher-alice-metrics-0001",
  collector: "collector-hpc1-metrics-00001",
};

type Sample = { name: string; labels: Record<string, string>; value: number };

// A small reader of the exposition format, strict enough that a malformed line fails the test.
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1], type[2]);
      continue;
    }
    if (line.startsWith("# HELP ")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]] = pair[2];
    }
    const value = m[3] === "+Inf" ? Number.POSITIVE_INFINITY : Number(m[3]);
    if (Number.isNaN(value) && m[3] !== "NaN") throw new Error(`bad value in ${line}`);
    samples.push({ name: m[1], labels, value });
  }
  return { samples, types };
}

describe("GET /metrics", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let objects: string;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    fx = await openTestStorage("server_metrics");
    objects = await mkdtemp(join(tmpdir(), "jobsight-metrics-"));
    const config = parseServerConfig({
      objectStore: { dir: objects },
      http: { logLevel: "silent" },
      rateLimit: { enabled: false },
      auth: {
        tokens: [
          { token: T.platform, role: "platform", user: "ops" },
          { token: T.alice, role: "researcher", user: "alice" },
          { token: T.collector, role: "collector", user: "node1", cluster: "hpc1" },
        ],
      },
    });
    app = await buildApp({ config, storage: fx.storage });
  });

  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
    if (objects) await rm(objects, { recursive: true, force: true });
  });

  const scrape = async () => {
    const res = await app.inject({ method: "GET", url: "/metrics", headers: bearer(T.platform) });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    return parseExposition(res.body);
  };
  const value = (samples: Sample[], name: string, labels: Record<string, string>) =>
    samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      ?.value ?? 0;

  it("is refused without a token and to every role but platform", async () => {
    expect((await app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(401);
    expect((await app.inject({ method: "GET", url: "/metrics", headers: bearer(T.alice) })).statusCode).toBe(
      403,
    );
    expect(
      (await app.inject({ method: "GET", url: "/metrics", headers: bearer(T.collector) })).statusCode,
    ).toBe(403);
  });

  it("counts answered requests by operation and status, with their durations", async () => {
    const before = (await scrape()).samples;
    const ingest = await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: bearer(T.collector),
      payload: { records: [jobRecord("hpc1", "1", "alice", 1), jobRecord("hpc1", "2", "bob", 2)] },
    });
    expect(ingest.statusCode).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect(
        (await app.inject({ method: "GET", url: "/v1/jobs", headers: bearer(T.alice) })).statusCode,
      ).toBe(200);
    }
    expect(
      (await app.inject({ method: "GET", url: "/v1/jobs/secret-job-77", headers: bearer(T.alice) }))
        .statusCode,
    ).toBe(404);
    expect((await app.inject({ method: "GET", url: "/no/such/path/alice" })).statusCode).toBe(404);

    const { samples, types } = await scrape();
    const delta = (labels: Record<string, string>) =>
      value(samples, "jobsight_http_requests_total", labels) -
      value(before, "jobsight_http_requests_total", labels);
    expect(delta({ operation: "ingestJobRecords", status: "200" })).toBe(1);
    expect(delta({ operation: "listJobs", status: "200" })).toBe(3);
    expect(delta({ operation: "getJob", status: "404" })).toBe(1);
    expect(delta({ operation: "unmatched", status: "404" })).toBe(1);
    expect(types.get("jobsight_http_requests_total")).toBe("counter");
    expect(types.get("jobsight_http_request_duration_seconds")).toBe("histogram");
    const count = value(samples, "jobsight_http_request_duration_seconds_count", { operation: "listJobs" });
    const inf = value(samples, "jobsight_http_request_duration_seconds_bucket", {
      operation: "listJobs",
      le: "+Inf",
    });
    expect(count).toBeGreaterThanOrEqual(3);
    expect(inf).toBe(count);
    expect(
      value(samples, "jobsight_http_request_duration_seconds_sum", { operation: "listJobs" }),
    ).toBeGreaterThan(0);
  });

  it("reports the process, the database pool and the licence state", async () => {
    const { samples, types } = await scrape();
    expect(value(samples, "process_resident_memory_bytes", {})).toBeGreaterThan(10 * 2 ** 20);
    expect(value(samples, "process_cpu_seconds_total", {})).toBeGreaterThan(0);
    expect(types.get("process_cpu_seconds_total")).toBe("counter");
    expect(value(samples, "jobsight_licence_state", { state: "missing" })).toBe(1);
    expect(value(samples, "jobsight_licence_state", { state: "valid" })).toBe(0);
    expect(samples.some((s) => s.name === "jobsight_db_pool_connections" && s.labels.state === "idle")).toBe(
      true,
    );
  });

  it("never puts a user, job id or token in a label", async () => {
    const res = await app.inject({ method: "GET", url: "/metrics", headers: bearer(T.platform) });
    for (const secret of [
      "alice",
      "bob",
      "secret-job-77",
      "/no/such/path",
      T.platform,
      T.alice,
      T.collector,
    ]) {
      expect(res.body).not.toContain(secret);
    }
  });
});
