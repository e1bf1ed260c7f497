import { describe, expect, it } from "vitest";
import type { DiskSpool } from "./disk-spool.js";
import { QueuedSpoolWriter, type SpoolItem } from "./queued-spool-writer.js";

/** A spool whose appends fail while `failing` is set, and which records what it was given. */
function fakeSpool() {
  const batches: SpoolItem[][] = [];
  const spool = {
    failing: false,
    batches,
    dropped: 0,
    countDropped(n: number) {
      spool.dropped += n;
    },
    async append(items: SpoolItem[]) {
      await new Promise((r) => setTimeout(r, 5));
      if (spool.failing) throw new Error("ENOSPC: no space left on device");
      batches.push(items);
      return items.map((_, i) => i);
    },
  };
  return spool;
}

describe("QueuedSpoolWriter", () => {
  it("writes one batch at a time, gathering what arrives meanwhile", async () => {
    const spool = fakeSpool();
    const writer = new QueuedSpoolWriter({ spool: spool as unknown as DiskSpool });
    for (let i = 0; i < 5; i++) writer.push("job", i);
    await writer.close();
    expect(spool.batches.map((b) => b.map((i) => i.value))).toEqual([[0], [1, 2, 3, 4]]);
  });

  it("keeps a batch whose append failed and writes it on retry, in order", async () => {
    const spool = fakeSpool();
    const failures: unknown[] = [];
    const writer = new QueuedSpoolWriter({
      spool: spool as unknown as DiskSpool,
      retryMs: 20,
      onFailed: (e) => failures.push(e),
    });
    spool.failing = true;
    writer.push("event", "a");
    await writer.flush();
    writer.push("event", "b");
    spool.failing = false;
    const end = Date.now() + 2000;
    while (spool.batches.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    await writer.close();
    expect(failures).toHaveLength(1);
    expect(spool.batches.flat().map((i) => i.value)).toEqual(["a", "b"]);
  });

  it("leaves out what the check drops", async () => {
    const spool = fakeSpool();
    const writer = new QueuedSpoolWriter({
      spool: spool as unknown as DiskSpool,
      check: (items) => items.filter((i) => i.value !== "bad"),
    });
    writer.push("job", "bad");
    writer.push("job", "good");
    await writer.close();
    expect(spool.batches.flat().map((i) => i.value)).toEqual(["good"]);
  });

  it("keeps at most maxPending records while appends fail and counts what it dropped", async () => {
    const spool = fakeSpool();
    const writer = new QueuedSpoolWriter({
      spool: spool as unknown as DiskSpool,
      retryMs: 20,
      maxPending: 2,
    });
    spool.failing = true;
    for (const v of ["a", "b", "c"]) writer.push("event", v);
    await writer.flush();
    writer.push("event", "d");
    await new Promise((r) => setTimeout(r, 30));
    await writer.flush();
    spool.failing = false;
    await writer.close();
    expect(spool.batches.flat().map((i) => i.value)).toEqual(["c", "d"]);
    expect(spool.dropped).toBe(2);
  });
});
