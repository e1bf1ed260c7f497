import {
  chmodSync,
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
import { FullDisk } from "../test-support/full-disk.js";
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

  it.each(["ENOSPC", "EDQUOT"])(
    "on %s keeps every record appended before, across a restart, and appends again once space returns",
    async (errorCode) => {
      const disk = new FullDisk();
      disk.errorCode = errorCode;
      const spool = await DiskSpool.open({ dir, fs: disk.fs });
      await spool.append([sample(1), sample(2)]);
      disk.spaceLeft = 200; // less than the next two frames: the write is short, as on a real disk
      await expect(spool.append([sample(3), sample(4)])).rejects.toMatchObject({ code: "SPOOL_FULL" });
      await expect(spool.append([sample(5)])).rejects.toMatchObject({ code: "SPOOL_FULL" });
      expect(spool.stats()).toMatchObject({ unacked: 2, lastSeq: 2 });
      expect(spool.stats().writeError).toContain(errorCode);
      // A crash now: the restart finds both records whole, nothing torn.
      const crashed = await DiskSpool.open({ dir });
      expect(crashed.stats()).toMatchObject({ unacked: 2, discardedBytes: 0 });
      await crashed.close();
      disk.spaceLeft = Number.POSITIVE_INFINITY;
      expect(await spool.append([sample(6)])).toEqual([3]);
      expect(spool.stats().writeError).toBeNull();
      await spool.close();
      const reopened = await DiskSpool.open({ dir });
      expect(reopened.stats().discardedBytes).toBe(0);
      expect(await drain(reopened)).toEqual([sample(1).value, sample(2).value, sample(6).value]);
      await reopened.close();
    },
  );

  it("deletes acknowledged segments while the disk is full, retries a failed deletion, and writes the state once space returns", async () => {
    const disk = new FullDisk();
    const spool = await DiskSpool.open({ dir, fs: disk.fs, segmentBytes: 300 });
    for (let i = 1; i <= 6; i++) await spool.append([sample(i)]);
    const segments = () => readdirSync(dir).filter((n) => n.startsWith("seg-"));
    expect(segments()).toHaveLength(2);
    expect((await spool.peek({ maxRecords: 3 })).map((r) => r.seq)).toEqual([1, 2, 3]);
    await spool.setPending({ firstSeq: 1, lastSeq: 3 });
    rmSync(join(dir, "reserve")); // given up earlier in this outage
    disk.spaceLeft = 0;
    disk.failUnlinks = 1;
    disk.unlinkMatching = /seg-/;
    await spool.ack(3, 3); // resolves: the state cannot be written, the delivery still counts
    expect(disk.failedUnlinks).toHaveLength(1);
    expect(segments()).toHaveLength(2);
    // The next operation deletes it.
    expect((await spool.peek()).map((r) => r.seq)).toEqual([4, 5, 6]);
    expect(segments()).toHaveLength(1);
    const onDisk = () => JSON.parse(readFileSync(join(dir, "state.json"), "utf8"));
    expect(onDisk()).toMatchObject({ ackedSeq: 0, pending: { firstSeq: 1, lastSeq: 3 } });
    disk.spaceLeft = Number.POSITIVE_INFINITY;
    await spool.peek();
    expect(onDisk()).toMatchObject({ ackedSeq: 3, pending: null });
    await spool.close();
    const reopened = await DiskSpool.open({ dir });
    expect((await drain(reopened)).map((v) => (v as { jobId: string }).jobId)).toEqual(["004", "005", "006"]);
    await reopened.close();
  });

  it("keeps an acknowledged segment until the disk holds the acknowledgement or the batch's bounds", async () => {
    const disk = new FullDisk();
    const spool = await DiskSpool.open({ dir, fs: disk.fs, segmentBytes: 300 });
    for (let i = 1; i <= 4; i++) await spool.append([sample(i)]);
    rmSync(join(dir, "reserve"));
    disk.spaceLeft = 0;
    // Nothing on disk says seq 3 was used: deleting its segment could let a restart number anew from 1.
    await spool.ack(3, 3);
    expect(readdirSync(dir).filter((n) => n.startsWith("seg-"))).toHaveLength(2);
    expect((await spool.peek()).map((r) => r.seq)).toEqual([4]);
    disk.spaceLeft = Number.POSITIVE_INFINITY;
    await spool.peek();
    expect(readdirSync(dir).filter((n) => n.startsWith("seg-"))).toHaveLength(1);
    await spool.close();
  });

  it("ships and deletes its own segments when they filled the disk, then appends again", async () => {
    const disk = new FullDisk();
    const spool = await DiskSpool.open({ dir, fs: disk.fs, segmentBytes: 300 });
    for (let i = 1; i <= 6; i++) await spool.append([sample(i)]);
    disk.spaceLeft = 0;
    await expect(spool.append([sample(7)])).rejects.toMatchObject({ code: "SPOOL_FULL" });
    // What the shipper does: the batch's bounds must be on disk before it is sent.
    const batch = await spool.peek({ maxRecords: 3 });
    await spool.setPending({ firstSeq: 1, lastSeq: 3 });
    await spool.ack(3, batch.length);
    expect(readdirSync(dir)).not.toContain("seg-0000000000000001.0.log");
    await spool.append([sample(7)]);
    await spool.close();
    const reopened = await DiskSpool.open({ dir });
    expect((await drain(reopened)).map((v) => (v as { jobId: string }).jobId)).toEqual([
      "004",
      "005",
      "006",
      "007",
    ]);
    await reopened.close();
  });

  it("keeps the spool private: directory 0700, files 0600, and tightens what an older version left open", async () => {
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "kmsg-position.json"), "{}");
    chmodSync(join(dir, "kmsg-position.json"), 0o644);
    const spool = await DiskSpool.open({ dir, segmentBytes: 300 });
    for (let i = 1; i <= 4; i++) await spool.append([sample(i)]);
    await spool.setPending({ firstSeq: 1, lastSeq: 1 });
    await spool.ack(1, 1);
    await spool.close();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const names = readdirSync(dir);
    expect(names).toEqual(expect.arrayContaining(["state.json", "spool-id", "kmsg-position.json"]));
    for (const name of names) expect([name, statSync(join(dir, name)).mode & 0o777]).toEqual([name, 0o600]);
    const fresh = join(dir, "nested", "spool");
    await (await DiskSpool.open({ dir: fresh })).close();
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
  });
});
