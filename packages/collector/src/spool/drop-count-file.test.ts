import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FullDisk } from "../test-support/full-disk.js";
import { DiskSpool } from "./disk-spool.js";
import { DROP_COUNT_FILE, DropCountFile, readDropCount } from "./drop-count-file.js";
import type { SpoolKind } from "./frame.js";
import { nodeSpoolFs } from "./spool-fs.js";

const sample = (i: number) => ({
  kind: "usage" as SpoolKind,
  value: { jobId: String(i), pad: "x".repeat(100) },
});

describe("DropCountFile", () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-drop-count-"));
    path = join(dir, DROP_COUNT_FILE);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads 0 without a file, and the last count written, across instances", async () => {
    expect(await readDropCount(path)).toBe(0);
    const file = new DropCountFile(path, nodeSpoolFs);
    expect(await file.prepare(4)).toBe(true);
    expect(await readDropCount(path)).toBe(4);
    for (const n of [5, 9, 12]) expect(await file.write(n)).toBe(true);
    expect(await readDropCount(path)).toBe(12);
    const again = new DropCountFile(path, nodeSpoolFs);
    expect(await again.prepare(0)).toBe(true);
    expect(await again.write(20)).toBe(true);
    expect(await readDropCount(path)).toBe(20);
    expect(statSync(path).size).toBe(64);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("falls back to the other slot when the newer one is torn, and to 0 when both are", async () => {
    const file = new DropCountFile(path, nodeSpoolFs);
    await file.prepare(0);
    await file.write(7); // generation 1: the second slot
    await file.write(8); // generation 2: the first slot
    const bytes = readFileSync(path);
    bytes.write("2:9", 0, "latin1"); // the first slot half-overwritten: its checksum no longer holds
    writeFileSync(path, bytes);
    expect(await readDropCount(path)).toBe(7);
    writeFileSync(path, "x".repeat(64));
    expect(await readDropCount(path)).toBe(0);
  });

  it("is written in place on a full disk, and cannot be made on one (without throwing)", async () => {
    const disk = new FullDisk();
    const file = new DropCountFile(path, disk.fs);
    await file.prepare(0);
    disk.spaceLeft = 0;
    expect(await file.write(3)).toBe(true);
    expect(await readDropCount(path)).toBe(3);
    const other = join(dir, "other");
    expect(await new DropCountFile(other, disk.fs).write(3)).toBe(false);
    expect(await readDropCount(other)).toBe(0);
  });
});

describe("DiskSpool's drop count on a full disk", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-spool-drops-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is durable once counted even when others took the room the reserve gave back", async () => {
    const disk = new FullDisk();
    const spool = await DiskSpool.open({ dir, fs: disk.fs });
    await spool.append([sample(1)]);
    disk.spaceLeft = 0;
    await expect(spool.append([sample(2)])).rejects.toMatchObject({ code: "SPOOL_FULL" });
    await spool.countDropped(1); // the state is written with the reserve's room
    expect(JSON.parse(readFileSync(join(dir, "state.json"), "utf8")).droppedSamples).toBe(1);
    disk.spaceLeft = 0; // another writer on the disk took that room
    await expect(spool.append([sample(3)])).rejects.toMatchObject({ code: "SPOOL_FULL" });
    await spool.countDropped(2);
    expect(JSON.parse(readFileSync(join(dir, "state.json"), "utf8")).droppedSamples).toBe(1);
    // Killed here (no close): the next process counts all three.
    const next = await DiskSpool.open({ dir });
    expect(next.stats().droppedSamples).toBe(3);
    // And writes its state with them once it can.
    await next.append([sample(4)]);
    expect(JSON.parse(readFileSync(join(dir, "state.json"), "utf8")).droppedSamples).toBe(3);
    await next.close();
  });
});
