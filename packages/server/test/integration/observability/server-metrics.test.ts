import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { register } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import type { ServerConfig } from "../../../src/config/server-config.js";
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

type Family = { name: string; type: string; help: string; samples: Sample[] };

// The layout prom-client writes: each family is `# HELP`, `# TYPE`, then only its own samples (a
// histogram's as <name>_bucket, _sum and _count), families apart by one blank line, none twice.
function readFamilies(text: string): Map<string, Family> {
  expect(text.endsWith("\n")).toBe(true);
  const families = new Map<string, Family>();
  for (const block of text.slice(0, -1).split("\n\n")) {
    const [helpLine = "", typeLine = "", ...lines] = block.split("\n");
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(helpLine);
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(typeLine);
    if (!help || !type || help[1] !== type[1]) {
      throw new Error(`a family without # HELP and # TYPE: ${block}`);
    }
    const name = type[1];
    if (families.has(name)) throw new Error(`${name} is declared twice`);
    const suffixes =
      type[2] === "histogram"
        ? ["_bucket", "_sum", "_count"]
        : type[2] === "summary"
          ? ["", "_sum", "_count"]
          : [""];
    const { samples, types } = parseExposition(lines.join("\n"));
    if (types.size > 0) throw new Error(`${name}: a # TYPE among its samples`);
    for (const s of samples) {
      if (!suffixes.some((suffix) => s.name === name + suffix)) {
        throw new Error(`${s.name} sits under # TYPE ${name}`);
      }
    }
    families.set(name, { name, type: type[2], help: help[2], samples });
  }
  return families;
}

describe("GET /metrics", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let objects: string;
  let config: ServerConfig;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    fx = await openTestStorage("server_metrics");
    objects = await mkdtemp(join(tmpdir(), "jobsight-metrics-"));
    config = parseServerConfig({
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

  const scrapeText = async (target: FastifyInstance = app) => {
    const res = await target.inject({ method: "GET", url: "/metrics", headers: bearer(T.platform) });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    return res.body;
  };
  const scrape = async (target: FastifyInstance = app) => parseExposition(await scrapeText(target));
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

  it("writes every sample under the # TYPE of its own family, as prom-client lays them out", async () => {
    expect((await app.inject({ method: "GET", url: "/v1/jobs", headers: bearer(T.alice) })).statusCode).toBe(
      200,
    );
    const families = readFamilies(await scrapeText());
    const declared = Object.fromEntries(
      [...families.values()].map((f) => [
        f.name,
        [f.type, [...new Set(f.samples.flatMap((s) => Object.keys(s.labels)))].sort().join(",")],
      ]),
    );
    expect(declared).toMatchObject({
      jobsight_http_requests_total: ["counter", "operation,status"],
      jobsight_http_request_duration_seconds: ["histogram", "le,operation"],
      process_cpu_seconds_total: ["counter", ""],
      process_resident_memory_bytes: ["gauge", ""],
      nodejs_heap_used_bytes: ["gauge", ""],
      nodejs_eventloop_delay_p99_seconds: ["gauge", ""],
      jobsight_db_pool_connections: ["gauge", "state"],
      jobsight_licence_state: ["gauge", "state"],
    });
    // Each series' buckets ascend, count cumulatively, and end at +Inf with the series' count.
    const durations = families.get("jobsight_http_request_duration_seconds")!.samples;
    for (const count of durations.filter((s) => s.name.endsWith("_count"))) {
      const buckets = durations.filter(
        (s) => s.name.endsWith("_bucket") && s.labels.operation === count.labels.operation,
      );
      const bounds = buckets.map((s) =>
        s.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(s.labels.le),
      );
      expect(bounds).toEqual([...bounds].sort((a, b) => a - b));
      expect(bounds.at(-1)).toBe(Number.POSITIVE_INFINITY);
      expect(buckets.map((s) => s.value)).toEqual(buckets.map((s) => s.value).sort((a, b) => a - b));
      expect(buckets.at(-1)?.value).toBe(count.value);
    }
  });

  it("keeps two apps' metrics in registries of their own", async () => {
    const other = await buildApp({ config, storage: fx.storage });
    try {
      const before = (await scrape()).samples;
      for (let i = 0; i < 2; i++) {
        expect(
          (await other.inject({ method: "GET", url: "/v1/usage-unknown", headers: bearer(T.alice) }))
            .statusCode,
        ).toBe(404);
      }
      const theirs = (await scrape(other)).samples;
      const mine = (await scrape()).samples;
      const unmatched = { operation: "unmatched", status: "404" };
      expect(value(theirs, "jobsight_http_requests_total", unmatched)).toBe(2);
      expect(value(mine, "jobsight_http_requests_total", unmatched)).toBe(
        value(before, "jobsight_http_requests_total", unmatched),
      );
      expect(register.getSingleMetric("jobsight_http_requests_total")).toBeUndefined();
    } finally {
      await other.close();
    }
    // Closing the second app leaves the first one scraping.
    expect((await scrape()).samples.length).toBeGreaterThan(0);
  });
});
