import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readSwfHistory } from "../../intelligence/accuracy/backtest/swf-history-loader.js";
import { SwfReader } from "./swf-parser.js";

const SAMPLE = `; Version: 2.2
; Computer: Test machine
; UnixStartTime: 781275672
; TimeZoneString: US/Mountain
; MaxProcs: 1024
;
    1      0   10   100   32   90   2048   32   600   4096  1  7  2  5  1 -1 -1 -1
    2      5    0    50   64   -1    512   64    -1     -1  0  8  2 -1  2 -1 -1 -1
this is not a job line
    3     30    1   600   32   -1     -1   32   600     -1  0  7  2  5  1 -1 -1 -1
    4     40    1    20   32   -1     -1   32
    5     20    2    10   32   -1     -1   32   100     -1  5  9  2  6  1 -1 -1 -1
`;

async function collect(reader: SwfReader) {
  const out = [];
  for await (const r of reader) out.push(r);
  return out;
}

describe("SwfReader", () => {
  it("reads the header and every valid job, counting bad lines with their line numbers", async () => {
    const reader = SwfReader.fromBuffer(SAMPLE);
    const jobs = await collect(reader);
    expect(jobs.map((j) => j.jobNumber)).toEqual([1, 2, 3, 5]);
    expect(reader.header.unixStartTime).toBe(781275672);
    expect(reader.header.timeZoneString).toBe("US/Mountain");
    expect(reader.header.maxProcs).toBe(1024);
    expect(reader.badLineCount).toBe(2);
    expect(reader.badLines.map((b) => b.line)).toEqual([9, 11]);
    expect(reader.badLines[1].reason).toMatch(/expected 18 fields, found 8/);
    expect(jobs[0]).toMatchObject({ submitTime: 0, waitTime: 10, runTime: 100, usedMemoryKb: 2048, line: 7 });
  });

  it("reads gzip input transparently", async () => {
    const reader = SwfReader.fromBuffer(gzipSync(Buffer.from(SAMPLE)));
    const jobs = await collect(reader);
    expect(jobs).toHaveLength(4);
    expect(reader.badLineCount).toBe(2);
  });

  it("keeps only the requested number of bad-line details but counts them all", async () => {
    const reader = SwfReader.fromBuffer(SAMPLE, { maxBadLineDetails: 1 });
    await collect(reader);
    expect(reader.badLineCount).toBe(2);
    expect(reader.badLines).toHaveLength(1);
  });

  it("normalises jobs: per-processor memory times processors, absolute times, outcomes, sorted by submit", async () => {
    const { jobs } = await readSwfHistory(SwfReader.fromBuffer(SAMPLE));
    expect(jobs.map((j) => j.id)).toEqual(["1", "2", "5", "3"]);
    const first = jobs[0];
    expect(first.submitTime).toBe(781275672);
    expect(first.endTime).toBe(781275672 + 10 + 100);
    expect(first.used.memoryBytes).toBe(2048 * 32 * 1024);
    expect(first.requested.memoryBytes).toBe(4096 * 32 * 1024);
    expect(first.used.cores).toBeCloseTo(32 * 0.9);
    expect(first.outcome).toBe("completed");
    expect(jobs[1].executable).toBeUndefined();
    expect(jobs[1].outcome).toBe("failed");
    expect(jobs[2].outcome).toBe("cancelled");
    expect(jobs[3].outcome).toBe("timeout");
  });
});
