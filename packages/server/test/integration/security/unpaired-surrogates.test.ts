import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.js";
import { jobRecord, openTestStorage, type StorageFixture, usageSample } from "../storage-fixture.js";
import { bearer, PRINCIPALS, testServerConfig } from "../test-server-config.js";

// JSON can carry a lone UTF-16 surrogate ("\ud800"), PostgreSQL text and jsonb cannot: such a
// field must be refused naming it (the item in a batch, or the request with 400), not reach
// storage and fail the batch with a 500.

const LONE = "\ud800";
const PAIRED = "\ud83d\ude00";

describe("strings with unpaired surrogates", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let objects: string;

  beforeAll(async () => {
    fx = await openTestStorage("unpaired_surrogates");
    objects = await mkdtemp(join(tmpdir(), "jobsight-surrogates-"));
    const config = testServerConfig(objects, [PRINCIPALS.alice, PRINCIPALS.collector, PRINCIPALS.platform]);
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
      // JSON.stringify writes a lone surrogate as the escape `\ud800`, as a client would send it.
      payload: JSON.stringify(payload),
    });

  it("refuses the job record holding one, naming its fields, and stores the rest of the batch", async () => {
    const good = jobRecord("hpc1", "s-1", "alice", 1);
    const bad = jobRecord("hpc1", "s-2", "alice", 2);
    bad.spec.jobName = `train${LONE}`;
    bad.spec.account = `${LONE}acct`;
    const res = await post("/v1/jobs", { records: [good, bad] });
    expect(res.statusCode).toBe(200);
    const refused = {
      index: 1,
      message: expect.stringMatching(/unpaired UTF-16 surrogate/),
      code: "VALIDATION_FAILED",
    };
    expect(res.json().rejected).toEqual([
      { ...refused, path: "/records/1/spec/account" },
      { ...refused, path: "/records/1/spec/jobName" },
    ]);
    expect(await fx.storage.jobs.find("s-1", {})).toHaveLength(1);
    expect(await fx.storage.jobs.find("s-2", {})).toEqual([]);
  });

  it("refuses a usage batch with 400 naming the sample's field", async () => {
    const sample = { ...usageSample("hpc1", "s-1", "n1", 0, 5), node: `n${LONE}1` };
    const res = await post("/v1/usage", { idempotencyKey: "surrogate-usage", samples: [sample] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ path: "/samples/0/node", message: expect.any(String) }]);
  });

  it("refuses one in a key, a query or a path with 400, not 500", async () => {
    const record = jobRecord("hpc1", "s-3", "alice", 3);
    const res = await post("/v1/jobs", { records: [{ ...record, spec: { ...record.spec, [LONE]: 1 } }] });
    expect(res.statusCode).toBe(400);
    for (const url of ["/v1/jobs?user=%ED%A0%80", "/v1/jobs/%ED%A0%80", `/v1/jobs?user=${LONE}`]) {
      const read = await app.inject({ url, headers: bearer(PRINCIPALS.platform.token) });
      expect(read.statusCode, url).toBeLessThan(500);
    }
  });

  it("stores and returns paired surrogates (emoji) unchanged", async () => {
    const record = jobRecord("hpc1", "s-4", "alice", 4);
    record.spec.jobName = `train ${PAIRED}`;
    expect((await post("/v1/jobs", { records: [record] })).statusCode).toBe(200);
    const read = await app.inject({ url: "/v1/jobs/s-4", headers: bearer(PRINCIPALS.alice.token) });
    expect(read.json().spec.jobName).toBe(`train ${PAIRED}`);
  });
});
