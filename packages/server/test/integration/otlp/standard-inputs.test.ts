import { Metadata } from "@grpc/grpc-js";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPMetricExporter as GrpcExporter } from "@opentelemetry/exporter-metrics-otlp-grpc";
import { OTLPMetricExporter as JsonExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import type { PushMetricExporter } from "@opentelemetry/sdk-metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerMetrics } from "../../../src/platform/observability/server-metrics.js";
import { type OtlpFixture, startOtlpFixture, TOKENS } from "./otlp-fixture.js";
import { exportOnce, withDiagWarnings } from "./sdk-export.js";

// Standard OpenTelemetry inputs, as a site's OpenTelemetry Collector (kubeletstats, hostmetrics)
// sends them, made by the real OpenTelemetry SDK and sent by its real exporters.

let fx: OtlpFixture;
const metrics = new ServerMetrics();
const exporters: PushMetricExporter[] = [];

beforeAll(async () => {
  fx = await startOtlpFixture("otlp_standard_inputs", { metrics });
});
afterAll(async () => {
  for (const e of exporters) await e.shutdown();
  metrics.close();
  await fx?.close();
});

function grpcExporter(token: string): GrpcExporter {
  const metadata = new Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  const exporter = new GrpcExporter({ url: fx.receivers.grpc.url, metadata });
  exporters.push(exporter);
  return exporter;
}

const GiB = 2 ** 30;

describe("standard OpenTelemetry inputs sent by the real SDK exporters", () => {
  it("stores a pod's kubeletstats metrics under the pod's job; skips what it does not read, refusing nothing", async () => {
    const pod = {
      "k8s.namespace.name": "ml",
      "k8s.pod.name": "train-0",
      "k8s.pod.uid": "0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9",
      "k8s.node.name": "gpu07",
    };
    const exporter = grpcExporter(TOKENS.hpc1);
    const { result, warnings } = await withDiagWarnings(async () => [
      await exportOnce(exporter, pod, {
        "k8s.pod.memory.usage": { unit: "By", value: 3 * GiB },
        "k8s.pod.memory.working_set": { unit: "By", value: 2 * GiB },
        "k8s.pod.cpu.time": { unit: "s", value: 120.5, counter: true },
        "k8s.pod.network.io": {
          unit: "By",
          value: 5000,
          counter: true,
          attributes: { "network.io.direction": "receive" },
        },
      }),
      // A node-level input naming only its node, where no job record puts a job: counted, not refused.
      await exportOnce(
        exporter,
        { "host.name": "gpu07" },
        {
          "system.cpu.time": { unit: "s", value: 9000.25, counter: true, attributes: { "cpu.mode": "user" } },
        },
      ),
    ]);
    expect(result.map((r) => r.code)).toEqual([ExportResultCode.SUCCESS, ExportResultCode.SUCCESS]);
    expect(warnings.filter((w) => w.includes("Partial Success"))).toEqual([]);

    const { samples } = await fx.storage.storage.samples.series("hpc1", "ml/train-0");
    expect(samples).toHaveLength(1);
    expect(samples[0]).toMatchObject({
      cluster: "hpc1",
      jobId: "ml/train-0",
      node: "gpu07",
      memory: { currentBytes: 3 * GiB },
      cpu: { usageSeconds: 120.5 },
    });
    const text = await metrics.render();
    expect(text).toContain(
      'jobsight_otlp_points_skipped_total{reason="unknown_metric",metric="k8s.pod.network.io"} 1\n',
    );
    expect(text).toContain(
      'jobsight_otlp_points_skipped_total{reason="no_job_on_node",metric="system.cpu.time"} 1\n',
    );
    expect(text).toMatch(/jobsight_otlp_points_rejected_total 0\n/);
  });

  it("stores hostmetrics process inputs (OTLP/JSON, MiBy) under the SLURM job their cgroup names", async () => {
    const exporter = new JsonExporter({
      url: fx.receivers.http.url,
      headers: { authorization: `Bearer ${TOKENS.hpc2}` },
    });
    exporters.push(exporter);
    const process = {
      "host.name": "cn042",
      "process.pid": 31337,
      "process.owner": "alice",
      "process.cgroup": "0::/system.slice/slurmstepd.scope/job_4242/step_batch/user/task_0",
    };
    const result = await exportOnce(exporter, process, {
      "process.memory.usage": { unit: "MiBy", value: 1536 },
      "process.cpu.time": { unit: "s", value: 61.5, counter: true, attributes: { state: "user" } },
      "process.thread.count": { unit: "{thread}", value: 12 },
    });
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    const { samples } = await fx.storage.storage.samples.series("hpc2", "4242");
    expect(samples).toHaveLength(1);
    expect(samples[0]).toMatchObject({
      cluster: "hpc2",
      jobId: "4242",
      node: "cn042",
      user: "alice",
      memory: { currentBytes: 1536 * 2 ** 20 },
      cpu: { usageSeconds: 61.5, userSeconds: 61.5, threads: 12 },
    });
  });

  it("answers partial success for a standard input it cannot use, and keeps the batch's other points", async () => {
    const exporter = grpcExporter(TOKENS.hpc1);
    const { result, warnings } = await withDiagWarnings(() =>
      exportOnce(
        exporter,
        { "jobsight.job.id": "77", "host.name": "gpu09" },
        {
          "hw.gpu.utilization": { unit: "1", value: 0.25, attributes: { "hw.id": "0" } },
          "hw.gpu.memory.usage": { unit: "By", value: 2 * GiB, attributes: { "hw.id": "0" } },
          // Seconds are no bytes: refused, and said so.
          "process.memory.usage": { unit: "s", value: 1 },
        },
      ),
    );
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(warnings.join("\n")).toMatch(/Partial Success/);
    expect(warnings.join("\n")).toMatch(/process\.memory\.usage: unit .+ is not By/);
    const { samples } = await fx.storage.storage.samples.series("hpc1", "77");
    expect(samples[0].gpus).toEqual([{ index: 0, utilizationPercent: 25, memoryUsedBytes: 2 * GiB }]);
    expect(samples[0].memory).toBeUndefined();
  });
});
