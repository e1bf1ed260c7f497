import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DiskSpool } from "./disk-spool.js";
import type { SpoolKind } from "./frame.js";

const sample = (i: number) => ({
  kind: "usage" as SpoolKind,
  value: { jobId: String(i).padStart(3, "0"), pad: "x".repeat(100) },
});
const event = (i: number) => ({ kind: "event" as SpoolKind, value: { event: i } });
const job = (i: number) => ({ kind: "job" as SpoolKind, value: { job: i } });

async function drain(spool: DiskSpool): Promise<unknown[]> {
  const out: unknown[] = [];
  for (;;) {
    const batch = await spool.peek({ maxRecords: 7 });
    if (batch.length === 0) return out;
    out.push(...batch.map((r) => r.value));
    await spool.ack(batch[batch.length - 1].seq, batch.length);
  }
}

describe("DiskSpool", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-spool-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("delivers appended records in order, one kind per batch, and forgets them once acknowledged", async () => {
    const spool = await DiskSpool.open({ dir });
    await spool.append([sample(1), sample(2), event(3)]);
    await spool.append([job(4), sample(5)]);
    const first = await spool.peek();
    expect(first.map((r) => [r.seq, r.kind])).toEqual([
      [1, "usage"],
      [2, "usage"],
    ]);
    // Not acknowledged: the same batch again.
    expect((await spool.peek()).map((r) => r.seq)).toEqual([1, 2]);
    await spool.ack(2, 2);
    expect((await spool.peek()).map((r) => r.kind)).toEqual(["event"]);
    expect(spool.stats().unacked).toBe(3);
    expect(await drain(spool)).toEqual([{ event: 3 }, { job: 4 }, sample(5).value]);
    expect(spool.stats()).toMatchObject({ unacked: 0, segments: 0, bytes: 0, ackedSeq: 5 });
    await spool.close();
  });

  it("keeps unacknowledged records across a restart and never reuses a sequence number", async () => {
    let spool = await DiskSpool.open({ dir });
    await spool.append([sample(1), sample(2), sample(3)]);
    await spool.ack(1, 1);
    await spool.close();
    spool = await DiskSpool.open({ dir });
    expect((await drain(spool)).map((v) => (v as { jobId: string }).jobId)).toEqual(["002", "003"]);
    await spool.close();
    spool = await DiskSpool.open({ dir });
    const [seq] = await spool.append([sample(4)]);
    expect(seq).toBe(4);
    await spool.close();
  });

  it("survives a crash mid-write at any byte: everything before the tear is delivered exactly once", async () => {
    const values = Array.from({ length: 12 }, (_, i) => sample(i));
    const setup = await DiskSpool.open({ dir, segmentBytes: 1 << 20 });
    for (let i = 0; i < values.length; i += 3) await setup.append(values.slice(i, i + 3));
    await setup.close();
    const [segment] = readdirSync(dir).filter((n) => n.startsWith("seg-"));
    const bytes = readFileSync(join(dir, segment));
    const frame = bytes.length / values.length;
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const offsets = [
      0,
      1,
      16,
      17,
      frame - 1,
      frame,
      frame + 5,
      bytes.length - 1,
      ...Array.from({ length: 12 }, () => Math.floor(random() * bytes.length)),
    ];
    for (const offset of offsets) {
      writeFileSync(join(dir, segment), bytes);
      truncateSync(join(dir, segment), offset);
      rmSync(join(dir, "state.json"), { force: true });
      const spool = await DiskSpool.open({ dir });
      const got = await drain(spool);
      await spool.close();
      expect(got).toEqual(values.slice(0, Math.floor(offset / frame)).map((v) => v.value));
    }
  });

  it("skips a frame whose checksum fails instead of replaying garbage", async () => {
    const spool = await DiskSpool.open({ dir });
    await spool.append([sample(1), sample(2), sample(3)]);
    await spool.close();
    const [segment] = readdirSync(dir).filter((n) => n.startsWith("seg-"));
    const bytes = readFileSync(join(dir, segment));
    const frame = bytes.length / 3;
    bytes[frame + 40] ^= 0xff; // flip a byte inside the second record's payload
    writeFileSync(join(dir, segment), bytes);
    const reopened = await DiskSpool.open({ dir });
    expect(await drain(reopened)).toEqual([sample(1).value]);
    expect(reopened.stats().discardedBytes).toBe(2 * frame);
    // New records after recovery are intact.
    await reopened.append([sample(9)]);
    expect(await drain(reopened)).toEqual([sample(9).value]);
    await reopened.close();
  });

  it("when full drops the oldest usage samples first, keeps job records and events, and counts the drops", async () => {
    const spool = await DiskSpool.open({ dir, maxBytes: 4000, segmentBytes: 1000 });
    for (let i = 0; i < 40; i++) {
      await spool.append([sample(i)]);
      if (i % 10 === 0) await spool.append([event(i), job(i)]);
    }
    const stats = spool.stats();
    expect(stats.bytes).toBeLessThanOrEqual(4000);
    expect(stats.droppedSamples).toBeGreaterThan(0);
    const all = await drain(spool);
    const kept = all
      .filter((v) => "jobId" in (v as object))
      .map((v) => Number((v as { jobId: string }).jobId));
    expect(all.filter((v) => "event" in (v as object))).toHaveLength(4);
    expect(all.filter((v) => "job" in (v as object))).toHaveLength(4);
    expect(kept.length + stats.droppedSamples).toBe(40);
    // What is kept is the newest samples, in order.
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 40 - kept.length + i));
    await spool.close();
    expect((await DiskSpool.open({ dir })).stats().droppedSamples).toBe(stats.droppedSamples);
  });

  it("remembers the bounds of an in-flight batch across a restart", async () => {
    let spool = await DiskSpool.open({ dir });
    await spool.append([sample(1), sample(2)]);
    await spool.setPending({ firstSeq: 1, lastSeq: 2 });
    await spool.append([sample(3)]);
    await spool.close();
    spool = await DiskSpool.open({ dir });
    expect(spool.pending).toEqual({ firstSeq: 1, lastSeq: 2 });
    expect((await spool.peek({ untilSeq: 2 })).map((r) => r.seq)).toEqual([1, 2]);
    await spool.ack(2, 2);
    expect(spool.pending).toBeNull();
    await spool.close();
  });

  it("deletes segments once every record in them is acknowledged", async () => {
    const spool = await DiskSpool.open({ dir, segmentBytes: 300 });
    for (let i = 0; i < 9; i++) await spool.append([sample(i)]);
    const segments = () => readdirSync(dir).filter((n) => n.startsWith("seg-"));
    expect(segments().length).toBeGreaterThan(2);
    await drain(spool);
    expect(segments()).toEqual([]);
    expect(statSync(join(dir, "state.json")).size).toBeGreaterThan(0);
    await spool.close();
  });
});
