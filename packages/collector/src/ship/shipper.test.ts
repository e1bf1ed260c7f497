import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SinkError } from "../errors.js";
import { DiskSpool } from "../spool/disk-spool.js";
import { Backoff } from "./backoff.js";
import { Shipper } from "./shipper.js";
import type { ShipBatch, Sink, SinkResult } from "./sink.js";

const usage = (i: number) => ({
  kind: "usage" as const,
  value: {
    cluster: "c1",
    jobId: String(i),
    node: "n1",
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  },
});
const event = (i: number) => ({
  kind: "event" as const,
  value: { cluster: "c1", node: "n1", time: "2026-01-01T00:00:00Z", kind: "oom_kill", message: `e${i}` },
});

/** A sink that records what it stored, deduplicating by idempotency key like the data plane. */
class RecordingSink implements Sink {
  stored = new Map<string, ShipBatch>();
  attempts: string[] = [];
  failuresLeft = 0;
  refuse = false;
  /** Usage samples of these jobs are refused one by one, as the data plane refuses invalid items. */
  invalidJobs = new Set<string>();
  async send(batch: ShipBatch, _signal?: AbortSignal): Promise<SinkResult> {
    this.attempts.push(batch.idempotencyKey);
    if (this.refuse) throw new SinkError("400 bad", false, 400);
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new SinkError("connection refused", true);
    }
    const invalid = (jobId: string) => this.invalidJobs.has(jobId);
    const rejected =
      batch.kind === "usage"
        ? batch.samples.flatMap((s, index) =>
            invalid(s.jobId)
              ? [{ index, path: `/samples/${index}/jobId`, message: "is invalid", code: "VALIDATION_FAILED" }]
              : [],
          )
        : [];
    const stored =
      batch.kind === "usage" ? { ...batch, samples: batch.samples.filter((s) => !invalid(s.jobId)) } : batch;
    if (!this.stored.has(batch.idempotencyKey)) this.stored.set(batch.idempotencyKey, stored);
    return rejected.length > 0 ? { rejected } : {};
  }
  items(): string[] {
    return [...this.stored.values()].flatMap((b) =>
      b.kind === "usage"
        ? b.samples.map((s) => s.jobId)
        : b.kind === "event"
          ? b.events.map((e) => e.message)
          : [],
    );
  }
}

describe("Shipper", () => {
  let dir: string;
  let clock: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-ship-"));
    clock = Date.UTC(2026, 0, 1, 0, 1, 0);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const make = (spool: DiskSpool, sink: Sink) =>
    new Shipper({
      spool,
      sink,
      maxBatchRecords: 3,
      now: () => clock,
      backoff: { initialMs: 1000, random: () => 0.5 },
    });

  it("sends everything in order, one kind per batch, and empties the spool", async () => {
    const spool = await DiskSpool.open({ dir });
    await spool.append([usage(1), usage(2), usage(3), usage(4), event(5), usage(6)]);
    const sink = new RecordingSink();
    const shipper = make(spool, sink);
    await shipper.tick();
    expect(sink.items()).toEqual(["1", "2", "3", "4", "e5", "6"]);
    expect([...sink.stored.values()].map((b) => b.kind)).toEqual(["usage", "usage", "event", "usage"]);
    const ev = [...sink.stored.values()][2];
    expect(ev.kind === "event" && ev.events[0].idempotencyKey).toBe(`${spool.id}:5`);
    expect(spool.stats().unacked).toBe(0);
    expect(shipper.stats()).toMatchObject({ sentBatches: 4, sentRecords: 6, lagSeconds: 0 });
    await spool.close();
  });

  it("backs off with jitter while the backend is down, keeps the spool, then delivers once it is back", async () => {
    const spool = await DiskSpool.open({ dir });
    await spool.append([usage(1), usage(2)]);
    const sink = new RecordingSink();
    sink.failuresLeft = 2;
    const shipper = make(spool, sink);
    await shipper.tick();
    expect(sink.attempts).toHaveLength(1);
    expect(shipper.stats()).toMatchObject({ consecutiveFailures: 1, sentBatches: 0 });
    expect(shipper.stats().lagSeconds).toBe(59);
    await shipper.tick(); // still inside the back-off window: no attempt
    expect(sink.attempts).toHaveLength(1);
    clock += 750;
    await shipper.tick();
    expect(sink.attempts).toHaveLength(2);
    clock += 1500;
    await shipper.tick();
    expect(sink.items()).toEqual(["1", "2"]);
    // The same batch was retried under the same key each time.
    expect(new Set(sink.attempts).size).toBe(1);
    expect(shipper.stats().consecutiveFailures).toBe(0);
    await spool.close();
  });

  it("is not held back by a wall clock stepped back while it backs off", async () => {
    const spool = await DiskSpool.open({ dir });
    await spool.append([usage(1)]);
    const sink = new RecordingSink();
    sink.failuresLeft = 1;
    const shipper = make(spool, sink);
    await shipper.tick();
    expect(shipper.stats().consecutiveFailures).toBe(1);
    // NTP steps the clock back an hour during the ~1 s wait: the wait must not grow by the step.
    clock -= 3_600_000;
    await shipper.tick();
    expect(sink.items()).toEqual(["1"]);
    await spool.close();
  });

  it("resends the interrupted batch with the same bounds and key after a restart: stored exactly once", async () => {
    let spool = await DiskSpool.open({ dir });
    await spool.append([usage(1), usage(2)]);
    const sink = new RecordingSink();
    // The backend stores the batch but the acknowledgement is lost (collector killed before ack).
    const lossy: Sink = {
      send: async (b, s) => {
        await sink.send(b, s);
        throw new SinkError("socket hang up", true);
      },
    };
    await make(spool, lossy).tick();
    await spool.close();
    spool = await DiskSpool.open({ dir });
    await spool.append([usage(3)]);
    await make(spool, sink).tick();
    expect(sink.items()).toEqual(["1", "2", "3"]);
    expect(sink.attempts[0]).toBe(sink.attempts[1]);
    await spool.close();
  });

  it("sets aside a batch the backend refuses for good and goes on", async () => {
    const spool = await DiskSpool.open({ dir });
    await spool.append([usage(1)]);
    await spool.append([event(2)]);
    const sink = new RecordingSink();
    sink.refuse = true;
    const shipper = make(spool, sink);
    await shipper.tick();
    expect(shipper.stats().rejectedBatches).toBe(2);
    expect(readdirSync(join(dir, "rejected"))).toHaveLength(2);
    expect(spool.stats().unacked).toBe(0);
    await spool.close();
  });

  it("keeps a batch refused for good in a private dead-letter file, counts it, and never sends it again", async () => {
    const spool = await DiskSpool.open({ dir });
    await spool.append([usage(1), usage(2)]);
    await spool.append([event(3)]);
    const sink = new RecordingSink();
    sink.refuse = true;
    const shipper = make(spool, sink);
    await shipper.tick();
    expect(shipper.stats()).toMatchObject({ rejectedBatches: 2, rejectedRecords: 3, consecutiveFailures: 0 });
    const rejected = join(dir, "rejected");
    expect(statSync(rejected).mode & 0o777).toBe(0o700);
    const files = readdirSync(rejected);
    for (const f of files) expect(statSync(join(rejected, f)).mode & 0o777).toBe(0o600);
    const kept = files.map((f) => JSON.parse(readFileSync(join(rejected, f), "utf8")));
    expect(kept.map((k) => [k.status, k.batch.idempotencyKey]).sort()).toEqual(
      [...sink.attempts].sort().map((key) => [400, key]),
    );
    sink.refuse = false;
    await spool.append([usage(4)]);
    for (let i = 0; i < 3; i++) {
      clock += 60_000;
      await shipper.tick();
    }
    expect(sink.attempts).toHaveLength(3);
    expect(new Set(sink.attempts).size).toBe(3);
    expect(sink.items()).toEqual(["4"]);
    await spool.close();
  });

  it("keeps the dead-letter counts across a restart, counting each refused record once", async () => {
    let spool = await DiskSpool.open({ dir });
    await spool.append([usage(1), usage(2)]);
    await spool.append([event(3)]);
    const sink = new RecordingSink();
    sink.refuse = true;
    await make(spool, sink).tick();
    sink.refuse = false;
    sink.invalidJobs = new Set(["5"]);
    await spool.append([usage(4), usage(5)]);
    await make(spool, sink).tick();
    await spool.close();
    // A restart: a new spool and shipper over the same folder, as the collector's next start makes.
    spool = await DiskSpool.open({ dir });
    let shipper = make(spool, sink);
    expect(shipper.stats()).toMatchObject({ rejectedBatches: 2, rejectedRecords: 4 });
    await spool.append([usage(6)]);
    await shipper.tick();
    expect(shipper.stats()).toMatchObject({ rejectedBatches: 2, rejectedRecords: 4, sentRecords: 1 });
    // Killed without closing: what was acknowledged with it is already on disk.
    spool = await DiskSpool.open({ dir });
    shipper = make(spool, sink);
    expect(shipper.stats()).toMatchObject({ rejectedBatches: 2, rejectedRecords: 4 });
    expect(readdirSync(join(dir, "rejected"))).toHaveLength(3);
    await spool.close();
  });

  it("sets aside only the records the backend refused of a stored batch, and never resends them", async () => {
    const spool = await DiskSpool.open({ dir });
    await spool.append([usage(1), usage(2), usage(3), usage(4), usage(5)]);
    const sink = new RecordingSink();
    sink.invalidJobs = new Set(["2", "3"]);
    const shipper = make(spool, sink);
    await shipper.tick();
    expect(sink.items()).toEqual(["1", "4", "5"]);
    expect(shipper.stats()).toMatchObject({
      sentBatches: 2,
      sentRecords: 3,
      rejectedBatches: 0,
      rejectedRecords: 2,
      consecutiveFailures: 0,
    });
    expect(spool.stats().unacked).toBe(0);
    const files = readdirSync(join(dir, "rejected"));
    expect(files).toEqual([`${spool.id}_1-3.json`]);
    const kept = JSON.parse(readFileSync(join(dir, "rejected", files[0]), "utf8"));
    expect(kept.batch.samples.map((s: { jobId: string }) => s.jobId)).toEqual(["2", "3"]);
    // Named by their place in the dead-letter file's batch.
    expect(kept.rejected).toEqual([
      { index: 0, path: "/samples/0/jobId", message: "is invalid", code: "VALIDATION_FAILED" },
      { index: 1, path: "/samples/1/jobId", message: "is invalid", code: "VALIDATION_FAILED" },
    ]);
    for (let i = 0; i < 3; i++) {
      clock += 60_000;
      await shipper.tick();
    }
    expect(sink.attempts).toHaveLength(2);
    await spool.close();
  });

  it("resends a batch whose refused records cannot be set aside yet, and stores the rest once", async () => {
    writeFileSync(join(dir, "rejected"), "a file where the folder should be");
    const spool = await DiskSpool.open({ dir });
    await spool.append([usage(1), usage(2)]);
    const sink = new RecordingSink();
    sink.invalidJobs = new Set(["2"]);
    const shipper = make(spool, sink);
    await shipper.tick();
    expect(spool.stats().unacked).toBe(2);
    expect(shipper.stats()).toMatchObject({ rejectedRecords: 0, consecutiveFailures: 1 });
    rmSync(join(dir, "rejected"));
    clock += 2000;
    await shipper.tick();
    expect(spool.stats().unacked).toBe(0);
    expect(shipper.stats()).toMatchObject({ sentRecords: 1, rejectedRecords: 1, consecutiveFailures: 0 });
    expect(new Set(sink.attempts).size).toBe(1);
    expect(sink.items()).toEqual(["1"]);
    await spool.close();
  });

  it("keeps a refused batch in the spool and retries it while its dead-letter file cannot be written", async () => {
    writeFileSync(join(dir, "rejected"), "a file where the folder should be");
    const spool = await DiskSpool.open({ dir });
    await spool.append([usage(1)]);
    const sink = new RecordingSink();
    sink.refuse = true;
    const shipper = make(spool, sink);
    await shipper.tick();
    expect(spool.stats().unacked).toBe(1);
    expect(shipper.stats()).toMatchObject({ rejectedBatches: 0, consecutiveFailures: 1 });
    rmSync(join(dir, "rejected"));
    clock += 2000;
    await shipper.tick();
    expect(spool.stats().unacked).toBe(0);
    expect(shipper.stats()).toMatchObject({ rejectedBatches: 1, consecutiveFailures: 0 });
    expect(readdirSync(join(dir, "rejected"))).toHaveLength(1);
    await spool.close();
  });

  it("skips a tick while the previous one is still running and never rejects", async () => {
    const spool = await DiskSpool.open({ dir });
    await spool.append([usage(1)]);
    let release: (() => void) | undefined;
    const slow: Sink = { send: () => new Promise<void>((r) => (release = r)) };
    const shipper = make(spool, slow);
    const first = shipper.tick();
    await vi.waitFor(() => expect(release).toBeDefined());
    const second = shipper.tick();
    expect(shipper.stats().skippedTicks).toBe(1);
    release?.();
    await Promise.all([first, second]);
    const broken: Sink = {
      send: () => {
        throw new TypeError("bug in a sink");
      },
    };
    await spool.append([usage(2)]);
    await expect(make(spool, broken).tick()).resolves.toBeUndefined();
    await spool.close();
  });
});

describe("Backoff", () => {
  it("doubles up to the maximum with jitter in the upper half", () => {
    const b = new Backoff({ initialMs: 100, maxMs: 1000, random: () => 0 });
    expect([b.fail(), b.fail(), b.fail(), b.fail(), b.fail()]).toEqual([50, 100, 200, 400, 500]);
    const hi = new Backoff({ initialMs: 100, maxMs: 1000, random: () => 0.999 });
    expect(hi.fail()).toBe(100);
    b.succeed();
    expect(b.fail()).toBe(50);
  });
});
