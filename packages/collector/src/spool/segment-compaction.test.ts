import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeFrame, type SpoolKind } from "./frame.js";
import { compactSegment } from "./segment-compaction.js";
import { scanSegment } from "./segment-scan.js";
import { type Segment, segmentName } from "./spool-recovery.js";

describe("compactSegment", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-compact-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function writeSegment(records: [number, SpoolKind][]): { seg: Segment; frameBytes: number } {
    const frames = records.map(([seq, kind]) => encodeFrame(seq, kind, { seq, pad: "x".repeat(50) }));
    const path = join(dir, segmentName(records[0][0], 0));
    writeFileSync(path, Buffer.concat(frames));
    const bytes = frames.reduce((n, f) => n + f.length, 0);
    const usage = records.filter(([, kind]) => kind === "usage").length;
    const seg = {
      id: records[0][0],
      gen: 0,
      path,
      bytes,
      firstSeq: records[0][0],
      lastSeq: records.at(-1)![0],
      usage,
    };
    return { seg, frameBytes: frames[0].length };
  }

  it("leaves out acknowledged records and the oldest usage samples, keeps events and jobs, in a new generation", async () => {
    const { seg, frameBytes } = writeSegment([
      [1, "usage"],
      [2, "usage"],
      [3, "event"],
      [4, "usage"],
      [5, "job"],
      [6, "usage"],
    ]);
    const { dropped, segment } = await compactSegment(seg, { dir, ackedSeq: 1, bytesToFree: frameBytes + 1 });
    expect(dropped).toBe(2);
    expect(segment).toMatchObject({
      id: 1,
      gen: 1,
      firstSeq: 3,
      lastSeq: 6,
      usage: 1,
      bytes: 3 * frameBytes,
    });
    expect(readdirSync(dir)).toEqual([segmentName(1, 1)]);
    const scan = await scanSegment(segment!.path);
    expect(scan.frames.map((f) => f.seq)).toEqual([3, 5, 6]);
  });

  it("removes the file and returns no segment when nothing is left", async () => {
    const { seg } = writeSegment([
      [7, "usage"],
      [8, "event"],
    ]);
    const { dropped, segment } = await compactSegment(seg, { dir, ackedSeq: 8, bytesToFree: 0 });
    expect(segment).toBeNull();
    expect(dropped).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });
});
