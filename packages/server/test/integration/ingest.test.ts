import type { NodeEvent } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobRecord, openTestStorage, type StorageFixture, usageSample } from "./storage-fixture.js";

describe("ingest and queries (plain PostgreSQL)", () => {
  let fx: StorageFixture;
  beforeAll(async () => {
    fx = await openTestStorage("ingest");
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  it("stores a batch of samples with duplicates once, and a resend adds nothing", async () => {
    const { samples } = fx.storage;
    const batch = [0, 10, 20, 30].map((s) => usageSample("hpc1", "100", "n1", s, 1000 + s));
    const first = await samples.insert([...batch, batch[1], batch[2]]);
    expect(first).toEqual({ accepted: 4, duplicates: 2 });
    // Same instant written differently is the same sample.
    const sameInstant = { ...batch[0], time: batch[0].time.replace(".000Z", "Z") };
    expect(await samples.insert([sameInstant, ...batch])).toEqual({ accepted: 0, duplicates: 5 });
    const series = await samples.series("hpc1", "100");
    expect(series.samples.map((s) => s.memory?.currentBytes)).toEqual([1000, 1010, 1020, 1030]);
    const summary = await samples.jobSummary("hpc1", "100");
    expect(summary).toMatchObject({ samples: 4, maxMemoryBytes: 1030, maxCpuSeconds: 15 });
  });

  it("creates daily partitions on demand, across days", async () => {
    const late = { ...usageSample("hpc1", "101", "n1", 0, 5), time: "2026-12-03T23:59:59Z" };
    const early = { ...usageSample("hpc1", "101", "n1", 0, 6), time: "2026-11-30T00:00:00Z" };
    expect(await fx.storage.samples.insert([late, early])).toEqual({ accepted: 2, duplicates: 0 });
    const { rows } = await fx.storage.pool.query(
      "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'usage_samples'::regclass ORDER BY 1",
    );
    expect(rows.map((r) => r.relname)).toEqual(
      expect.arrayContaining(["usage_samples_20261130", "usage_samples_20261201", "usage_samples_20261203"]),
    );
  });

  it("downsamples to the last reading per bucket with the bucket's peak", async () => {
    const spiky = [0, 15, 30, 45, 60, 75].map((s) =>
      usageSample("hpc1", "102", "n1", s, s === 15 ? 9000 : 100 + s),
    );
    await fx.storage.samples.insert(spiky);
    const series = await fx.storage.samples.series("hpc1", "102", { stepSeconds: 60 });
    expect(series.stepSeconds).toBe(60);
    expect(series.samples.map((s) => [s.time, s.memory?.currentBytes, s.memory?.peakBytes])).toEqual([
      ["2026-12-01T10:00:45.000Z", 145, 9000],
      ["2026-12-01T10:01:15.000Z", 175, 175],
    ]);
  });

  it("lets later lifecycle phases update earlier ones, never the other way round", async () => {
    const { jobs } = fx.storage;
    const submitted = jobRecord("hpc1", "200", "alice", 1);
    const started = {
      ...submitted,
      phase: "started" as const,
      startedAt: "2026-12-01T00:05:00Z",
      nodes: ["n1", "n2"],
    };
    const ended = {
      ...submitted,
      phase: "ended" as const,
      startedAt: "2026-12-01T00:05:00Z",
      endedAt: "2026-12-01T01:05:00Z",
      outcome: { state: "COMPLETED" as const, exitCode: 0 },
      peaks: { memoryBytes: 5e8 },
    };
    expect(await jobs.upsert([submitted])).toEqual({ accepted: 1, duplicates: 0 });
    expect(await jobs.upsert([started])).toEqual({ accepted: 1, duplicates: 0 });
    expect(await jobs.upsert([ended, ended])).toEqual({ accepted: 1, duplicates: 1 });
    // A late "started" (a resend that arrived after the end) changes nothing.
    expect(await jobs.upsert([started, submitted])).toEqual({ accepted: 0, duplicates: 2 });
    const [stored] = await jobs.find("200", { cluster: "hpc1" });
    expect(stored.phase).toBe("ended");
    expect(stored.outcome).toEqual({ state: "COMPLETED", exitCode: 0 });
    // What the ended record left out is kept from the earlier phase.
    expect(stored.nodes).toEqual(["n1", "n2"]);
  });

  it("stores node events once, by idempotency key or by content", async () => {
    const event: NodeEvent = {
      cluster: "hpc1",
      node: "gpu7",
      time: "2026-12-01T10:00:00Z",
      kind: "gpu_xid",
      jobId: "300",
      xid: { code: 79, pciBusId: "0000:3b:00" },
      message: "NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.",
    };
    const keyed = { ...event, time: "2026-12-01T10:01:00Z", idempotencyKey: "gpu7-kmsg-000123" };
    expect(await fx.storage.events.insert([event, keyed])).toEqual({ accepted: 2, duplicates: 0 });
    expect(await fx.storage.events.insert([{ ...event, time: "2026-12-01T10:00:00.000Z" }, keyed])).toEqual({
      accepted: 0,
      duplicates: 2,
    });
    expect((await fx.storage.events.forJob("hpc1", "300")).map((e) => e.time)).toEqual([
      event.time,
      keyed.time,
    ]);
  });

  it("pages through jobs newest first with a keyset cursor, filtered by user", async () => {
    const { jobs } = fx.storage;
    const records = Array.from({ length: 25 }, (_, i) =>
      jobRecord("page", `p${i}`, i % 2 ? "bob" : "carol", 1000 + (i % 10)),
    );
    await jobs.upsert(records);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await jobs.list({ cluster: "page", user: "carol", limit: 4, cursor });
      seen.push(...page.items.map((r) => r.jobId));
      expect(page.items.every((r) => r.spec.user === "carol")).toBe(true);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(13);
    expect(new Set(seen).size).toBe(13);
    const times = (await jobs.list({ cluster: "page", limit: 100 })).items.map((r) => r.submittedAt);
    expect(times).toEqual([...times].sort().reverse());
    const window = await jobs.list({
      cluster: "page",
      from: "2026-12-01T16:45:00Z",
      to: "2026-12-01T16:47:00Z",
    });
    expect(
      window.items.map((r) => r.submittedAt).every((t) => t >= "2026-12-01T16:45" && t < "2026-12-01T16:47"),
    ).toBe(true);
    expect(window.items.map((r) => r.jobId).sort()).toEqual(["p15", "p16", "p5", "p6"]);
  });

  it("summarises history per (user, executable) and per user for the predictor", async () => {
    const ended = (
      jobId: string,
      user: string,
      executable: string,
      memory: number,
      run: number,
      state = "COMPLETED",
    ) =>
      jobRecord("hist", jobId, user, Number(jobId.slice(1)), {
        phase: "ended",
        spec: { cluster: "hist", scheduler: "slurm", user, executable, requested: {} },
        startedAt: "2026-12-01T00:00:00Z",
        endedAt: new Date(Date.UTC(2026, 11, 2) + Number(jobId.slice(1)) * 1000).toISOString(),
        outcome: { state: state as "COMPLETED" },
        peaks: { memoryBytes: memory, runTimeSeconds: run },
      });
    const records = [
      ...Array.from({ length: 10 }, (_, i) => ended(`h${i}`, "dana", "vasp", (i + 1) * 100, (i + 1) * 10)),
      ended("h10", "dana", "lammps", 50, 5),
      ended("h11", "dana", "vasp", 99_999, 1, "OUT_OF_MEMORY"),
    ];
    await fx.storage.jobs.upsert(records);
    const groups = await fx.storage.history({ cluster: "hist", lastN: 3 });
    const vasp = groups.find((g) => g.level === "user_executable" && g.executable === "vasp")!;
    expect(vasp).toMatchObject({ user: "dana", count: 11, completed: 10, censored: 1 });
    expect(vasp.peakMemoryBytes).toEqual({ n: 10, p50: 550, p90: 910, p99: 991, max: 1000 });
    expect(vasp.last.peakMemoryBytes).toEqual([1000, 900, 800]);
    const perUser = groups.find((g) => g.level === "user" && g.user === "dana")!;
    expect(perUser).toMatchObject({ count: 12, completed: 11 });
    expect(perUser.runTimeSeconds.max).toBe(100);
    const before = await fx.storage.history({ cluster: "hist", before: "2026-12-02T00:00:05Z" });
    expect(before.find((g) => g.level === "user")?.count).toBe(5);
  });
});
