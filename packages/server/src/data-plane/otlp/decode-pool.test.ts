import { encodeExportMetricsRequest, encodeObservations, OtlpDecodeError } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import { afterEach, describe, expect, it } from "vitest";
import { InternalError } from "../../errors.js";
import { decodeBatch } from "./decode-batch.js";
import { OtlpDecodePool } from "./decode-pool.js";

const sample = (i: number, cluster = "hpc1"): UsageSample => ({
  cluster,
  jobId: `j${i % 3}`,
  node: "cn001",
  time: new Date(Date.UTC(2026, 11, 1, 23, 59, 50) + i * 10_000).toISOString(),
  user: "alice",
  memory: { currentBytes: 2 ** 30 + i, peakBytes: 2 ** 30 + 2 * i },
  cpu: { usageSeconds: i * 0.5 },
});
const body = (samples: UsageSample[]) => encodeExportMetricsRequest(encodeObservations(samples));

describe("OtlpDecodePool", () => {
  const pools: OtlpDecodePool[] = [];
  const pool = (threads: number) => {
    const p = new OtlpDecodePool({ threads });
    pools.push(p);
    return p;
  };
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.close();
  });

  it("decodes on a worker exactly what decoding on the calling thread gives", async () => {
    const samples = Array.from({ length: 50 }, (_, i) => sample(i));
    // One point of another cluster: rejected the same way on both.
    const bytes = body([...samples, sample(99, "elsewhere")]);
    const inline = decodeBatch(bytes, "protobuf", { cluster: "hpc1" });
    const workers = pool(2);
    const [a, b] = await Promise.all([
      workers.decode(bytes, "protobuf", { cluster: "hpc1" }),
      workers.decode(bytes, "protobuf", { cluster: "hpc1" }),
    ]);
    for (const batch of [a, b]) {
      expect(batch.rejected).toEqual(inline.rejected);
      expect(batch.rejected.count).toBeGreaterThan(0);
      expect(batch.prepared.count).toBe(50);
      expect(Buffer.from(batch.prepared.copyText).toString()).toBe(
        Buffer.from(inline.prepared.copyText).toString(),
      );
      expect(batch.prepared.hourly).toEqual(inline.prepared.hourly);
      // The samples straddle midnight: two daily partitions.
      expect(batch.prepared.days).toEqual([Date.UTC(2026, 11, 1), Date.UTC(2026, 11, 2)]);
    }
    // The caller's buffer is left as it was (the worker got a copy).
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(decodeBatch(bytes, "protobuf", { cluster: "hpc1" }).prepared.count).toBe(50);
  });

  it("prepares batches for a TimescaleDB store without the hourly summary parameters, on a worker and inline", async () => {
    const bytes = body(Array.from({ length: 5 }, (_, i) => sample(i)));
    const workers = new OtlpDecodePool({ threads: 1, flavour: "timescale" });
    const inline = new OtlpDecodePool({ threads: 0, flavour: "timescale" });
    pools.push(workers, inline);
    const plain = decodeBatch(bytes, "protobuf", { cluster: "hpc1" });
    for (const batch of [
      await workers.decode(bytes, "protobuf", { cluster: "hpc1" }),
      await inline.decode(bytes, "protobuf", { cluster: "hpc1" }),
    ]) {
      expect(batch.prepared.count).toBe(5);
      expect(batch.prepared.hourly).toBeUndefined();
      expect(batch.prepared.days).toBeUndefined();
      expect(Buffer.from(batch.prepared.copyText).toString()).toBe(
        Buffer.from(plain.prepared.copyText).toString(),
      );
    }
  });

  it("moves a body it may take instead of copying it, and copies a view into a larger buffer", async () => {
    const workers = pool(1);
    const samples = Array.from({ length: 20 }, (_, i) => sample(i));
    const expected = Buffer.from(
      decodeBatch(body(samples), "protobuf", { cluster: "hpc1" }).prepared.copyText,
    );
    // A body that owns its memory: Node 24's 64 KiB Buffer pool would make body() a view into it.
    const own = new Uint8Array(body(samples));
    const moved = await workers.decode(own, "protobuf", { cluster: "hpc1" }, { transfer: true });
    expect(Buffer.from(moved.prepared.copyText).equals(expected)).toBe(true);
    expect(own.byteLength).toBe(0);
    // A view into a larger buffer (a shared pool's slice) stays the caller's even when offered.
    const encoded = body(samples);
    const larger = new Uint8Array(encoded.byteLength + 16);
    larger.set(encoded, 8);
    const view = larger.subarray(8, 8 + encoded.byteLength);
    const copied = await workers.decode(view, "protobuf", { cluster: "hpc1" }, { transfer: true });
    expect(Buffer.from(copied.prepared.copyText).equals(expected)).toBe(true);
    expect(view.byteLength).toBe(encoded.byteLength);
  });

  it("takes a stored batch's COPY buffer back for the next batch, on a worker and inline", async () => {
    const samples = Array.from({ length: 30 }, (_, i) => sample(i));
    const expected = Buffer.from(
      decodeBatch(body(samples), "protobuf", { cluster: "hpc1" }).prepared.copyText,
    );
    const inline = pool(0);
    const first = await inline.decode(body(samples), "protobuf", { cluster: "hpc1" });
    const buffer = first.prepared.copyText.buffer;
    first.release?.();
    const second = await inline.decode(body(samples), "protobuf", { cluster: "hpc1" });
    expect(second.prepared.copyText.buffer).toBe(buffer);
    expect(Buffer.from(second.prepared.copyText).equals(expected)).toBe(true);

    const workers = pool(1);
    const a = await workers.decode(body(samples), "protobuf", { cluster: "hpc1" });
    const handed = a.prepared.copyText.buffer;
    a.release?.();
    // Moved back to the worker: nothing of it is left here to be read by mistake.
    expect(handed.byteLength).toBe(0);
    for (let i = 0; i < 3; i++) {
      const next = await workers.decode(body(samples), "protobuf", { cluster: "hpc1" });
      expect(Buffer.from(next.prepared.copyText).equals(expected)).toBe(true);
      next.release?.();
    }
  });

  it("fails a body that does not decode with the decoder's own error, and goes on", async () => {
    const bad = Uint8Array.of(0x0a, 0x05, 0x01);
    let inline: unknown;
    try {
      decodeBatch(bad, "protobuf", {});
    } catch (error) {
      inline = error;
    }
    expect(inline).toBeInstanceOf(OtlpDecodeError);
    const workers = pool(1);
    const error = await workers.decode(bad, "protobuf", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OtlpDecodeError);
    expect(error).toMatchObject({
      code: (inline as OtlpDecodeError).code,
      message: (inline as OtlpDecodeError).message,
    });
    const json = await workers.decode(Buffer.from("{nope"), "json", {}).catch((e: unknown) => e);
    expect(json).toMatchObject({ code: "OTLP_MALFORMED_JSON" });
    expect((await workers.decode(body([sample(1)]), "protobuf", { cluster: "hpc1" })).prepared.count).toBe(1);
  });

  it("decodes on the calling thread without threads, and fails what a closing pool still held", async () => {
    const inline = pool(0);
    expect((await inline.decode(body([sample(1)]), "protobuf", {})).prepared.count).toBe(1);
    const workers = pool(1);
    const held = workers.decode(body(Array.from({ length: 2000 }, (_, i) => sample(i))), "protobuf", {});
    await workers.close();
    await expect(held).rejects.toBeInstanceOf(InternalError);
    // A closed pool still answers, on the calling thread.
    expect((await workers.decode(body([sample(2)]), "protobuf", {})).prepared.count).toBe(1);
  });
});
