import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validators } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { jobRecord, openTestStorage, type StorageFixture, usageSample } from "./storage-fixture.js";
import { bearer, PRINCIPALS, testServerConfig } from "./test-server-config.js";

// An ingest batch with a few bad items stores the others and names each bad item's fields in
// `rejected` (200, as OTLP partial success), so one bad record neither loses the batch nor blocks
// a collector that would resend it.

const LONE = "\ud800";
const mentions = (text: string) => expect.stringContaining(text);

describe("ingest batches with invalid items", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let objects: string;

  beforeAll(async () => {
    fx = await openTestStorage("partial_batches");
    objects = await mkdtemp(join(tmpdir(), "jobsight-partial-"));
    const config = testServerConfig(objects, [PRINCIPALS.collector, PRINCIPALS.platform]);
    app = await buildApp({ config, storage: fx.storage });
  });

  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
    if (objects) await rm(objects, { recursive: true, force: true });
  });

  const post = (url: string, payload: unknown) =>
    app.inject({
      method: "POST",
      url,
      headers: { ...bearer(PRINCIPALS.collector.token), "content-type": "application/json" },
      payload: JSON.stringify(payload),
    });
  const read = (url: string) => app.inject({ url, headers: bearer(PRINCIPALS.platform.token) });

  it("stores the valid job records of a mixed batch and names every field of the others, by index", async () => {
    const noTime = { ...jobRecord("hpc1", "p-1", "alice", 1), submittedAt: "yesterday" };
    const broken = jobRecord("hpc1", "p-3", "alice", 3);
    broken.spec.jobName = `train${LONE}`;
    broken.spec.requested = { memoryBytes: -1 };
    const batch = {
      records: [jobRecord("hpc1", "p-0", "alice", 0), noTime, jobRecord("hpc1", "p-2", "bob", 2), broken],
    };
    const res = await post("/v1/jobs", batch);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(validators.IngestResult.validate(body)).toMatchObject({ ok: true });
    expect(body).toEqual({
      accepted: 2,
      duplicates: 0,
      rejected: [
        {
          index: 1,
          path: "/records/1/submittedAt",
          message: mentions("date-time"),
          code: "VALIDATION_FAILED",
        },
        {
          index: 3,
          path: "/records/3/spec/jobName",
          message: mentions("unpaired UTF-16 surrogate"),
          code: "VALIDATION_FAILED",
        },
        {
          index: 3,
          path: "/records/3/spec/requested/memoryBytes",
          message: expect.any(String),
          code: "VALIDATION_FAILED",
        },
      ],
    });
    for (const id of ["p-0", "p-2"])
      expect((await read(`/v1/jobs/${id}`)).json()).toMatchObject({ jobId: id });
    for (const id of ["p-1", "p-3"]) expect((await read(`/v1/jobs/${id}`)).statusCode).toBe(404);

    // A resend (the collector lost the answer) stores nothing twice and refuses the same items.
    const again = (await post("/v1/jobs", batch)).json();
    expect(again).toMatchObject({ accepted: 0, duplicates: 2 });
    expect(again.rejected).toEqual(body.rejected);
  });

  it("stores the valid usage samples and node events of mixed batches", async () => {
    const good = usageSample("hpc1", "p-0", "n1", 0, 2 ** 20);
    const usage = await post("/v1/usage", {
      idempotencyKey: "partial-usage-1",
      samples: [
        good,
        { ...good, time: "2026-12-01T10:00:05Z", memory: { currentBytes: -1 } },
        { ...good, time: "2026-12-01T10:00:10Z" },
      ],
    });
    expect(usage.statusCode).toBe(200);
    expect(usage.json()).toEqual({
      accepted: 2,
      duplicates: 0,
      rejected: [
        {
          index: 1,
          path: "/samples/1/memory/currentBytes",
          message: expect.any(String),
          code: "VALIDATION_FAILED",
        },
      ],
    });
    const series = (await read("/v1/jobs/p-0/usage?cluster=hpc1")).json();
    expect(series.samples.map((s: { time: string }) => Date.parse(s.time))).toEqual(
      [good.time, "2026-12-01T10:00:10Z"].map(Date.parse),
    );

    const event = {
      ...{ cluster: "hpc1", node: "n1", time: "2026-12-01T10:01:00Z", kind: "oom_kill", jobId: "p-0" },
      message: "Memory cgroup out of memory: Killed process 4242 (python)",
    };
    const events = await post("/v1/events", {
      events: [{ ...event, kind: "meteor_strike" }, event],
    });
    expect(events.statusCode).toBe(200);
    expect(events.json()).toMatchObject({ accepted: 1, rejected: [{ index: 0, path: "/events/0/kind" }] });
    expect((await read("/v1/jobs/p-0/events?cluster=hpc1")).json().events).toMatchObject([
      { kind: "oom_kill" },
    ]);
  });

  it("answers a full success without `rejected`", async () => {
    const res = await post("/v1/jobs", { records: [jobRecord("hpc1", "p-4", "alice", 4)] });
    expect(res.json()).toEqual({ accepted: 1, duplicates: 0 });
  });

  it("still refuses the whole batch with 400 when no item is valid or its envelope is wrong", async () => {
    const none = await post("/v1/jobs", {
      records: [{ ...jobRecord("hpc1", "p-5", "alice", 5), submittedAt: "soon" }],
    });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({
      code: "VALIDATION_FAILED",
      errors: [{ path: "/records/0/submittedAt" }],
    });
    const good = usageSample("hpc1", "p-5", "n1", 0, 1);
    const envelope = await post("/v1/usage", {
      idempotencyKey: "x",
      samples: [good, { ...good, node: 7 }],
    });
    expect(envelope.statusCode).toBe(400);
    expect(envelope.json().errors.map((e: { path: string }) => e.path)).toContain("/idempotencyKey");
    expect((await read("/v1/jobs/p-5/usage?cluster=hpc1")).json().samples).toEqual([]);
  });

  it("names a forbidden item by its position in the batch as sent", async () => {
    const res = await post("/v1/jobs", {
      records: [
        { ...jobRecord("hpc1", "p-6", "alice", 6), phase: "lost" },
        jobRecord("hpc2", "p-7", "alice", 7),
      ],
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().errors).toEqual([{ path: "/records/1/cluster", message: expect.any(String) }]);
    expect((await read("/v1/jobs/p-7")).statusCode).toBe(404);
  });
});
