import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FullDisk } from "../test-support/full-disk.js";
import { DiskSpool } from "./disk-spool.js";
import { HeldRecords } from "./held-records.js";

const job = (i: number) => ({ kind: "job" as const, value: { job: i } });
const routine = { kind: "usage" as const, value: { routine: true } };

describe("HeldRecords", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-held-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("holds what a full disk refused, up to its limit, writes it first once space returns, and counts exactly what it dropped", async () => {
    const disk = new FullDisk();
    const spool = await DiskSpool.open({ dir, fs: disk.fs });
    const out = new HeldRecords({ spool, maxHeld: 3, redundant: (r) => r === routine });
    disk.spaceLeft = 0;
    await expect(out.append([job(1), routine, job(2)])).rejects.toMatchObject({ code: "SPOOL_FULL" });
    expect(out.count).toBe(2);
    await expect(out.append([job(3), job(4)])).rejects.toMatchObject({ code: "SPOOL_FULL" });
    expect(out.count).toBe(3);
    // The routine record, then job 1 (the oldest past the limit).
    expect(spool.stats().droppedSamples).toBe(2);
    disk.spaceLeft = Number.POSITIVE_INFINITY;
    await out.append([job(5)]);
    expect(out.count).toBe(0);
    expect((await spool.peek()).map((r) => r.value)).toEqual([2, 3, 4, 5].map((i) => job(i).value));
    await spool.close();
    expect((await DiskSpool.open({ dir })).stats().droppedSamples).toBe(2);
  });

  it("has the count of what a full disk made it drop on disk before the failure is reported", async () => {
    const disk = new FullDisk();
    const spool = await DiskSpool.open({ dir, fs: disk.fs });
    const out = new HeldRecords({ spool, redundant: (r) => r === routine });
    disk.spaceLeft = 0;
    await expect(out.append([routine, routine, job(1)])).rejects.toMatchObject({ code: "SPOOL_FULL" });
    // Read as the next process would after a SIGKILL here: no later operation or close wrote it.
    const onDisk = JSON.parse(readFileSync(join(dir, "state.json"), "utf8"));
    expect(onDisk.droppedSamples).toBe(2);
    await expect(out.append([routine])).rejects.toMatchObject({ code: "SPOOL_FULL" });
    expect(JSON.parse(readFileSync(join(dir, "state.json"), "utf8")).droppedSamples).toBe(3);
  });
});
