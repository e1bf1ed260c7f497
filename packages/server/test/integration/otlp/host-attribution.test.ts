import { Metadata } from "@grpc/grpc-js";
import type { JobRecord } from "@jobsight/schemas";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPMetricExporter as GrpcExporter } from "@opentelemetry/exporter-metrics-otlp-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerMetrics } from "../../../src/platform/observability/server-metrics.js";
import { type OtlpFixture, startOtlpFixture, TOKENS } from "./otlp-fixture.js";
import { exportOnce, type Gauges, withDiagWarnings } from "./sdk-export.js";

// hostmetrics and a GPU exporter as a site's OpenTelemetry Collector sends them from SLURM nodes:
// node-wide metrics that name only `host.name`, made and sent by the real OpenTelemetry SDK. The
// receiver gives them to the job its records put alone on the node at the reading's time.

let fx: OtlpFixture;
const metrics = new ServerMetrics();
let exporter: GrpcExporter;
const HOUR = 3_600_000;

function slurmJob(jobId: string, nodes: string[], startedAt: number, endedAt?: number): JobRecord {
  return {
    cluster: "hpc1",
    jobId,
    phase: endedAt === undefined ? "started" : "ended",
    source: "slurm-controller",
    spec: { cluster: "hpc1", scheduler: "slurm", user: `user${jobId}`, requested: { cores: 8 } },
    submittedAt: new Date(startedAt - 60_000).toISOString(),
    startedAt: new Date(startedAt).toISOString(),
    ...(endedAt === undefined ? {} : { endedAt: new Date(endedAt).toISOString() }),
    ...(endedAt === undefined ? {} : { outcome: { state: "COMPLETED" as const } }),
    nodes,
  };
}

beforeAll(async () => {
  fx = await startOtlpFixture("otlp_host_attribution", { metrics });
  const now = Date.now();
  await fx.storage.storage.jobs.upsert([
    // cn010: an earlier job ended two hours ago; 5001 has the node alone now.
    slurmJob("5000", ["cn010"], now - 5 * HOUR, now - 2 * HOUR),
    slurmJob("5001", ["cn010", "cn013"], now - HOUR),
    // cn011: two jobs share it now.
    slurmJob("5002", ["cn011"], now - HOUR),
    slurmJob("5003", ["cn011", "cn012"], now - 2 * HOUR),
  ]);
  const metadata = new Metadata();
  metadata.set("authorization", `Bearer ${TOKENS.hpc1}`);
  exporter = new GrpcExporter({ url: fx.receivers.grpc.url, metadata });
});
afterAll(async () => {
  await exporter?.shutdown();
  metrics.close();
  await fx?.close();
});

const node: Gauges = {
  "system.cpu.time": {
    unit: "s",
    value: 500.5,
    counter: true,
    series: [{ "cpu.mode": "user" }, { "cpu.mode": "system" }, { "cpu.mode": "idle" }],
  },
  "system.memory.usage": { unit: "By", value: 8 * 2 ** 30, attributes: { "system.memory.state": "used" } },
  "hw.gpu.utilization": { unit: "1", value: 0.75, attributes: { "hw.id": "0" } },
  "hw.gpu.memory.usage": { unit: "By", value: 2 ** 30, attributes: { "hw.id": "0" } },
};

describe("node-wide inputs naming only host.name, sent by the real SDK exporter", () => {
  it("land on the job that has the node alone; on a shared or empty node they are counted, and nothing is refused", async () => {
    const results: number[] = [];
    const { warnings } = await withDiagWarnings(async () => {
      for (const host of ["cn010", "cn011", "cn014"])
        results.push((await exportOnce(exporter, { "host.name": host }, node)).code);
    });
    expect(results).toEqual([ExportResultCode.SUCCESS, ExportResultCode.SUCCESS, ExportResultCode.SUCCESS]);
    expect(warnings.filter((w) => w.includes("Partial Success"))).toEqual([]);

    const { samples } = await fx.storage.storage.samples.series("hpc1", "5001");
    expect(samples).toHaveLength(1);
    expect(samples[0]).toMatchObject({
      cluster: "hpc1",
      jobId: "5001",
      node: "cn010",
      user: "user5001",
      memory: { currentBytes: 8 * 2 ** 30 },
      cpu: { usageSeconds: 1001, userSeconds: 500.5, systemSeconds: 500.5 },
      gpus: [{ index: 0, utilizationPercent: 75, memoryUsedBytes: 2 ** 30 }],
    });
    expect(samples[0].step).toBeUndefined();
    // Only that sample was stored: the shared node's and the empty node's readings were not.
    expect(await fx.rowCount()).toBe(1);

    const text = await metrics.render();
    for (const [reason, metric, n] of [
      ["node_shared", "system.cpu.time", 2],
      ["node_shared", "system.memory.usage", 1],
      ["node_shared", "hw.gpu.utilization", 1],
      ["no_job_on_node", "system.cpu.time", 2],
      ["no_job_on_node", "hw.gpu.memory.usage", 1],
      // The idle mode is nobody's use, wherever it was read.
      ["not_applicable", "system.cpu.time", 3],
    ] as const) {
      expect(text).toContain(
        `jobsight_otlp_points_skipped_total{reason="${reason}",metric="${metric}"} ${n}\n`,
      );
    }
    expect(text).toMatch(/jobsight_otlp_points_rejected_total 0\n/);
  });

  it("take a job's own attribute over the node: a reading naming its job is that job's", async () => {
    const result = await exportOnce(
      exporter,
      { "host.name": "cn011", "jobsight.job.id": "5002" },
      {
        "system.memory.usage": { unit: "By", value: 1234, attributes: { "system.memory.state": "used" } },
      },
    );
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    const { samples } = await fx.storage.storage.samples.series("hpc1", "5002");
    expect(samples.map((s) => [s.node, s.memory?.currentBytes])).toEqual([["cn011", 1234]]);
  });
});
