import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import {
  createExportMetricsResponse,
  decodeObservationsProtobuf,
  describeRejections,
  encodeExportMetricsResponse,
  encodeRejectedSamples,
  METRICS_EXPORT_PATH,
  REJECTED_SAMPLES_METADATA_KEY,
} from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas/light";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DiskSpool } from "../spool/disk-spool.js";
import { OtlpSink } from "./otlp-sink.js";
import { Shipper } from "./shipper.js";

/**
 * A real OTLP/gRPC receiver on 127.0.0.1 that judges points as the data plane's does (the bridge's
 * decoder, confined to the token's cluster hpc1) and answers the same way: partial success with
 * the count and, unless `nameSamples` is off, the rejected samples in the trailing metadata.
 */
async function startReceiver(nameSamples = true) {
  const stored: UsageSample[] = [];
  const answers: { rejected: number }[] = [];
  const server = new grpc.Server();
  const definition = {
    export: {
      path: METRICS_EXPORT_PATH,
      requestStream: false,
      responseStream: false,
      originalName: "Export",
      requestSerialize: (b: Buffer) => b,
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => b,
    },
  } satisfies grpc.ServiceDefinition;
  const handler: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
    const decoded = decodeObservationsProtobuf(call.request, { cluster: "hpc1" });
    stored.push(...decoded.samples);
    answers.push({ rejected: decoded.rejected.count });
    const response = encodeExportMetricsResponse(
      createExportMetricsResponse(decoded.rejected.count, describeRejections(decoded.rejected)),
    );
    const trailer = new grpc.Metadata();
    if (nameSamples && decoded.rejectedSamples.length > 0)
      trailer.set(REJECTED_SAMPLES_METADATA_KEY, encodeRejectedSamples(decoded.rejectedSamples));
    callback(null, Buffer.from(response), trailer);
  };
  server.addService(definition, { export: handler });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  return { server, url: `http://127.0.0.1:${port}`, stored, answers };
}

const sample = (i: number, cluster = "hpc1"): UsageSample => ({
  cluster,
  jobId: String(100 + i),
  node: "gpu-a01",
  time: new Date(Date.UTC(2026, 11, 1, 10, 0, i)).toISOString(),
  memory: { currentBytes: 1_000_000 + i, limitBytes: 8_589_934_592, oomKillEvents: 0 },
  cpu: { usageSeconds: i, userSeconds: i, systemSeconds: 0 },
});

type DeadLetter = {
  status: number;
  batch: { samples: UsageSample[] };
  rejected: { index: number; path: string; message: string; code: string }[];
};

describe("OtlpSink partial success through the shipper", () => {
  let dir: string;
  const cleanups: (() => unknown)[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-otlp-partial-"));
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    rmSync(dir, { recursive: true, force: true });
  });

  async function ship(url: string, samples: UsageSample[]) {
    const spool = await DiskSpool.open({ dir });
    cleanups.push(() => spool.close());
    await spool.append(samples.map((value) => ({ kind: "usage" as const, value })));
    const shipper = new Shipper({
      spool,
      sink: new OtlpSink({ otlpUrl: url, restUrl: "http://127.0.0.1:9" }),
    });
    cleanups.push(() => shipper.stop());
    await shipper.tick();
    const files = existsSync(join(dir, "rejected")) ? readdirSync(join(dir, "rejected")) : [];
    const letters = files.map(
      (f) => JSON.parse(readFileSync(join(dir, "rejected", f), "utf8")) as DeadLetter,
    );
    return { spool, shipper, letters };
  }

  it("dead-letters exactly the samples whose points the receiver rejected, and counts the rest as stored", async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.server.forceShutdown());
    const samples = [sample(0), sample(1, "hpc2"), sample(2), sample(3), sample(4, "hpc2"), sample(5)];

    const { spool, shipper, letters } = await ship(receiver.url, samples);

    expect(receiver.answers).toHaveLength(1);
    expect(receiver.answers[0].rejected).toBeGreaterThan(0);
    expect(receiver.stored.map((s) => s.jobId)).toEqual(["100", "102", "103", "105"]);
    expect(shipper.stats()).toMatchObject({
      sentBatches: 1,
      sentRecords: 4,
      rejectedBatches: 0,
      rejectedRecords: 2,
      failures: 0,
    });
    expect(spool.stats().unacked).toBe(0);
    expect(letters).toHaveLength(1);
    expect(letters[0].status).toBe(200);
    expect(letters[0].batch.samples).toEqual([samples[1], samples[4]]);
    expect(letters[0].rejected).toEqual([
      expect.objectContaining({ index: 0, path: "/samples/0", code: "OTLP_PARTIAL_SUCCESS" }),
      expect.objectContaining({ index: 1, path: "/samples/1", code: "OTLP_PARTIAL_SUCCESS" }),
    ]);
    expect(letters[0].rejected[0].message).toMatch(/cluster hpc2 is not this sender's cluster \(hpc1\)/);

    // Set aside for good: later passes send nothing more.
    await shipper.tick();
    expect(receiver.answers).toHaveLength(1);
  });

  it("sets aside every unnamed sample, losing none, when the receiver only counts the rejected points", async () => {
    const receiver = await startReceiver(false);
    cleanups.push(() => receiver.server.forceShutdown());
    const samples = [sample(0), sample(1, "hpc2"), sample(2)];

    const { shipper, letters } = await ship(receiver.url, samples);

    expect(receiver.stored.map((s) => s.jobId)).toEqual(["100", "102"]);
    expect(shipper.stats()).toMatchObject({ sentRecords: 0, rejectedRecords: 3 });
    expect(letters[0].batch.samples).toEqual(samples);
    expect(letters[0].rejected[0].message).toMatch(/without naming their samples/);
  });

  it("dead-letters every sample when the receiver rejected every point, named or not", async () => {
    const receiver = await startReceiver(false);
    cleanups.push(() => receiver.server.forceShutdown());
    const samples = [sample(0, "hpc2"), sample(1, "hpc2")];

    const { shipper, letters } = await ship(receiver.url, samples);

    expect(receiver.stored).toEqual([]);
    expect(shipper.stats()).toMatchObject({ sentRecords: 0, rejectedRecords: 2 });
    expect(letters[0].rejected.map((r) => r.message)).toEqual([
      expect.stringMatching(/^every data point was rejected/),
      expect.stringMatching(/^every data point was rejected/),
    ]);
  });

  it("sets aside a sample that fails the schema without sending it, and ships the others", async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.server.forceShutdown());
    const bad = { ...sample(1), memory: { currentBytes: -5 } } as unknown as UsageSample;
    const samples = [sample(0), bad, sample(2)];

    const { shipper, letters } = await ship(receiver.url, samples);

    expect(receiver.stored.map((s) => s.jobId)).toEqual(["100", "102"]);
    expect(shipper.stats()).toMatchObject({ sentRecords: 2, rejectedRecords: 1, failures: 0 });
    expect(letters[0].batch.samples).toEqual([bad]);
    expect(letters[0].rejected).toEqual([
      expect.objectContaining({ index: 0, path: "/samples/0", code: "VALIDATION_FAILED" }),
    ]);
  });
});
