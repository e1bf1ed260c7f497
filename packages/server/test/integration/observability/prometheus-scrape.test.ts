import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Metadata } from "@grpc/grpc-js";
import { observationsToResourceMetrics } from "@jobsight/otel-bridge";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-grpc";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../../../../test/services/free-port.js";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { type OtlpReceivers, startOtlpReceivers } from "../../../src/data-plane/otlp/otlp-receivers.js";
import { richSamples } from "../otlp/otlp-fixture.js";
import { exportOnce } from "../otlp/sdk-export.js";
import { openTestStorage, type StorageFixture } from "../storage-fixture.js";
import { type PrometheusServer, startPrometheus } from "./prometheus-server.js";

// A real Prometheus (Debian's package, installed by the test when missing) scrapes the server's
// GET /metrics (with a platform bearer token, as the endpoint requires) and a running collector's
// health port, and evaluates recording rules over Jobsight's own metrics.

const T = {
  platform: "platform-prometheus-token-0001",
  collector: "collector-hpc1-prometheus-001",
};
const collectorCli = join(import.meta.dirname, "..", "..", "..", "..", "collector", "dist", "cli.js");

const SAMPLES = 12;
const SKIPPED_POINTS = 3;

let fx: StorageFixture;
let app: FastifyInstance;
let otlp: OtlpReceivers;
let prom: PrometheusServer;
let collector: ChildProcess | undefined;
let work: string;

beforeAll(async () => {
  if (!existsSync(collectorCli))
    throw new Error("build the collector first: pnpm --filter @jobsight/collector build");
  fx = await openTestStorage("prometheus_scrape");
  work = await mkdtemp(join(tmpdir(), "jobsight-prom-"));
  const config = parseServerConfig({
    objectStore: { dir: join(work, "objects") },
    http: { logLevel: "silent" },
    rateLimit: { enabled: false },
    otlp: { grpcPort: 0, httpPort: 0 },
    auth: {
      tokens: [
        { token: T.platform, role: "platform", user: "ops" },
        { token: T.collector, role: "collector", user: "node1", cluster: "hpc1" },
      ],
    },
  });
  await fx.storage.clusters.register({ id: "hpc1", name: "HPC1", scheduler: "slurm" });
  app = await buildApp({ config, storage: fx.storage });
  await app.listen({ host: "127.0.0.1", port: 0 });
  otlp = await startOtlpReceivers({ config, storage: app.storage, metrics: app.metrics });

  // A node collector with nothing to read (empty cgroup and /proc roots), shipping to the server.
  const healthPort = await findFreePort();
  const serverPort = (app.server.address() as { port: number }).port;
  collector = spawn(
    process.execPath,
    [
      collectorCli,
      "run",
      ...["--cluster", "hpc1", "--node", "n1", "--interval", "1"],
      ...["--cgroup-root", join(work, "cgroup"), "--cgroup-version", "v2", "--proc-root", join(work, "proc")],
      ...["--gpu", "off", "--kmsg", "false", "--spool-dir", join(work, "spool")],
      ...[
        "--url",
        `http://127.0.0.1:${serverPort}`,
        "--health-port",
        String(healthPort),
        "--log-level",
        "error",
      ],
    ],
    { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, JOBSIGHT_TOKEN: T.collector } },
  );
  prom = await startPrometheus({
    targets: [
      { job: "jobsight-server", port: serverPort, bearerToken: T.platform },
      { job: "jobsight-collector", port: healthPort },
    ],
    rules: [
      {
        record: "jobsight:otlp_samples_accepted:sum",
        expr: 'sum(jobsight_otlp_samples_total{outcome="accepted"})',
      },
      {
        record: "jobsight:otlp_points_skipped:sum",
        expr: "sum by (reason) (jobsight_otlp_points_skipped_total)",
      },
      { record: "jobsight:collector_healthy", expr: 'max(jobsight_collector_status{status="ok"})' },
    ],
  });
}, 900_000);

afterAll(async () => {
  await prom?.close();
  if (collector && collector.exitCode === null) {
    const exited = new Promise((r) => collector?.once("exit", r));
    collector.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
    if (collector.exitCode === null && collector.signalCode === null) collector.kill("SIGKILL");
  }
  await otlp?.close(1_000);
  await app?.close();
  await fx?.dispose();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("a real Prometheus scraping the server and a collector", () => {
  it("scrapes both, and a recording rule over the OTLP counters gives what was sent", async () => {
    await prom.waitFor('up{job="jobsight-server"}', (v) => v === 1);
    await prom.waitFor('up{job="jobsight-collector"}', (v) => v === 1);
    expect(await prom.waitFor("jobsight:collector_healthy", (v) => v === 1)).toBe(1);

    const metadata = new Metadata();
    metadata.set("authorization", `Bearer ${T.collector}`);
    const exporter = new OTLPMetricExporter({ url: otlp.grpc.url, metadata });
    const samples = richSamples("hpc1", "prom-1", SAMPLES);
    const [resourceMetrics] = observationsToResourceMetrics(samples, { scheduler: "slurm" });
    const result = await new Promise<ExportResult>((resolve) => exporter.export(resourceMetrics, resolve));
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    // A metric Jobsight does not read, as a site's gateway forwards it: skipped, counted, never refused.
    const site = await exportOnce(
      exporter,
      { "host.name": "n1" },
      {
        "site.queue.depth": {
          unit: "1",
          value: 4,
          series: Array.from({ length: SKIPPED_POINTS }, (_, i) => ({ queue: `q${i}` })),
        },
      },
    );
    expect(site.code).toBe(ExportResultCode.SUCCESS);
    await exporter.shutdown();

    expect(await prom.waitFor("jobsight:otlp_samples_accepted:sum", (v) => v === SAMPLES)).toBe(SAMPLES);
    expect(
      await prom.waitFor(
        'jobsight:otlp_points_skipped:sum{reason="unknown_metric"}',
        (v) => v === SKIPPED_POINTS,
      ),
    ).toBe(SKIPPED_POINTS);
    expect(await prom.query("sum(jobsight_otlp_points_rejected_total)")).toBe(0);
    // The collector's figures arrive too, typed as prom-client writes them.
    expect(await prom.query('count(jobsight_collector_rounds_total{job="jobsight-collector"})')).toBe(1);
  });
});
