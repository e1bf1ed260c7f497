import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Metadata } from "@grpc/grpc-js";
import type { JobRecord } from "@jobsight/schemas";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPMetricExporter as GrpcExporter } from "@opentelemetry/exporter-metrics-otlp-grpc";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { ServerMetrics } from "../../../src/platform/observability/server-metrics.js";
import { type OtlpFixture, startOtlpFixture, TOKENS } from "./otlp-fixture.js";
import { exportOnce, type Gauges, withDiagWarnings } from "./sdk-export.js";

// A runtime's receiver on a Kubernetes node (the Collector's docker_stats, a containerd exporter)
// sends container metrics that name only `container.id`, made and sent here by the real
// OpenTelemetry SDK. The collector's Kubernetes mode posts each pod's record with its containers'
// ids (`containerIds`) through the REST ingest route; the receiver gives each reading to that job.

let fx: OtlpFixture;
let app: FastifyInstance;
let objects: string;
const metrics = new ServerMetrics();
let exporter: GrpcExporter;

const TRAINER = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const SIDECAR = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";
const UNKNOWN = "fd61a03af4f77d870fc21e05e7e80678095c92d808cfb3b5c279ee04c74aca13";

/** A running pod's record as the collector's Kubernetes mode sends it (`recordFromPod`). */
function podRecord(now: number): JobRecord {
  const submittedAt = new Date(now - 600_000).toISOString();
  return {
    cluster: "hpc1",
    jobId: "ml/train-0",
    phase: "started",
    source: "kubernetes",
    spec: {
      cluster: "hpc1",
      scheduler: "kubernetes",
      user: "alice",
      requested: { cores: 4, memoryBytes: 8 * 2 ** 30 },
      submitTime: submittedAt,
    },
    submittedAt,
    startedAt: new Date(now - 300_000).toISOString(),
    nodes: ["gpu07"],
    containerIds: [TRAINER, SIDECAR],
  };
}

beforeAll(async () => {
  fx = await startOtlpFixture("otlp_container_attribution", { metrics });
  objects = await mkdtemp(join(tmpdir(), "jobsight-container-attribution-"));
  app = await buildApp({
    config: parseServerConfig({
      objectStore: { dir: objects },
      http: { logLevel: "silent" },
      rateLimit: { enabled: false },
      auth: { tokens: [{ token: TOKENS.hpc1, role: "collector", user: "svc", cluster: "hpc1" }] },
    }),
    storage: fx.storage.storage,
    intelligence: false,
  });
  const metadata = new Metadata();
  metadata.set("authorization", `Bearer ${TOKENS.hpc1}`);
  exporter = new GrpcExporter({ url: fx.receivers.grpc.url, metadata });
});
afterAll(async () => {
  await exporter?.shutdown();
  await app?.close();
  metrics.close();
  await fx?.close();
  if (objects) await rm(objects, { recursive: true, force: true });
});

const container: Gauges = {
  "container.cpu.time": { unit: "s", value: 42.5, counter: true },
  "container.memory.usage": { unit: "By", value: 3 * 2 ** 30 },
};

describe("container inputs naming only container.id, sent by the real SDK exporter", () => {
  it("land on the job whose pod record lists the container, with its user; an unknown container is counted, and nothing is refused", async () => {
    const posted = await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: { authorization: `Bearer ${TOKENS.hpc1}` },
      payload: { records: [podRecord(Date.now())] },
    });
    expect(posted.statusCode).toBe(200);
    const [stored] = await fx.storage.storage.jobs.find("ml/train-0", { cluster: "hpc1" });
    expect(stored.containerIds).toEqual([TRAINER, SIDECAR]);

    const results: number[] = [];
    const { warnings } = await withDiagWarnings(async () => {
      const resources: Record<string, string>[] = [
        // A user the reading names is not taken: the record says whose the container is.
        { "container.id": TRAINER, "host.name": "gpu07", "user.name": "mallory" },
        // As Kubernetes writes it, upper-case digits and all; no node: the record's.
        { "container.id": `containerd://${SIDECAR.toUpperCase()}`, "k8s.container.name": "sidecar" },
        { "container.id": UNKNOWN, "host.name": "gpu07" },
      ];
      for (const resource of resources) results.push((await exportOnce(exporter, resource, container)).code);
    });
    expect(results).toEqual([ExportResultCode.SUCCESS, ExportResultCode.SUCCESS, ExportResultCode.SUCCESS]);
    expect(warnings.filter((w) => w.includes("Partial Success"))).toEqual([]);

    const { samples } = await fx.storage.storage.samples.series("hpc1", "ml/train-0");
    const byStep = new Map(samples.map((s) => [s.step ?? "", s]));
    expect(samples).toHaveLength(2);
    for (const step of ["", "sidecar"]) {
      expect(byStep.get(step)).toMatchObject({
        cluster: "hpc1",
        jobId: "ml/train-0",
        node: "gpu07",
        user: "alice",
        memory: { currentBytes: 3 * 2 ** 30 },
        cpu: { usageSeconds: 42.5 },
      });
    }
    // Only those samples were stored: the unknown container's readings were not.
    expect(await fx.rowCount()).toBe(2);

    const text = await metrics.render();
    for (const metric of ["container.cpu.time", "container.memory.usage"]) {
      expect(text).toContain(
        `jobsight_otlp_points_skipped_total{reason="container_unmapped",metric="${metric}"} 1\n`,
      );
    }
    expect(text).toMatch(/jobsight_otlp_points_rejected_total 0\n/);
  });
});
