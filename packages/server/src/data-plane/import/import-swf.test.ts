import { validators } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { swfItems, swfRecordToJobRecord } from "./import-swf.js";
import { parseJobLine, SwfReader } from "./swf-parser.js";

// The first job lines of LANL-CM5-1994-4.1-cln.swf.gz (UnixStartTime 781275672).
const START = 781_275_672;
const LINE_1 = "    1        0      0   3691  128   3436  6676   -1   3600  5904  1   2   2   2 -1 -1 -1 -1";
const LINE_2 = "    2      465      5   3362   32 489.00   988   32    900  1024  1   3   3   3  1 -1 -1 -1";

function record(line: string, n = 1) {
  const r = parseJobLine(line.trim(), n);
  if (typeof r === "string") throw new Error(r);
  return r;
}

describe("SWF → JobRecord", () => {
  it("multiplies per-processor memory by the processors and derives times from the header", () => {
    const job = swfRecordToJobRecord(record(LINE_1), START, "lanl-cm5");
    expect(validators.JobRecord.validate(job)).toMatchObject({ ok: true });
    expect(job).toMatchObject({
      cluster: "lanl-cm5",
      jobId: "1",
      phase: "ended",
      source: "swf-import",
      submittedAt: new Date(START * 1000).toISOString().replace(".000Z", "Z"),
      spec: {
        user: "2",
        account: "2",
        executable: "2",
        // requested processors unknown (-1): the allocated ones stand in
        requested: { cores: 128, walltimeSeconds: 3600, memoryBytes: 5904 * 128 * 1024 },
      },
      allocated: { cores: 128 },
      peaks: { memoryBytes: 6676 * 128 * 1024, runTimeSeconds: 3691, cpuTimeSeconds: 3436 * 128 },
      outcome: { state: "COMPLETED" },
    });
  });

  it("calls a failed job that ran to its requested time a timeout", () => {
    const failed = LINE_2.replace(/ 1 {3}3 {3}3 {3}3 {2}1 /, " 0   3   3   3  1 ");
    expect(swfRecordToJobRecord(record(failed), START, "lanl-cm5").outcome).toEqual({ state: "TIMEOUT" });
    const cancelled = LINE_2.replace(/ 1 {3}3 {3}3 {3}3 {2}1 /, " 5   3   3   3  1 ");
    expect(swfRecordToJobRecord(record(cancelled), START, "lanl-cm5").outcome).toEqual({
      state: "CANCELLED",
    });
  });

  it("hands on the reader's bad lines with their line numbers, in order", async () => {
    const text = `; UnixStartTime: ${START}\n${LINE_1}\nnot a job\n${LINE_2}\n1 2 3\n`;
    const items = [];
    for await (const item of swfItems(SwfReader.fromBuffer(text), "lanl-cm5")) items.push(item);
    expect(items.map((i) => ("error" in i ? `bad ${i.line}` : `job ${i.line}`))).toEqual([
      "job 2",
      "bad 3",
      "job 4",
      "bad 5",
    ]);
  });
});
