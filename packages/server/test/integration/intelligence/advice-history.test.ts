import { type AdviceHistory, type JobSpec, type ResourcePrediction, validators } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelStore } from "../../../src/data-plane/stores/model-store.js";
import {
  insertPredictionRows,
  predictionRows,
  type RecordedPrediction,
} from "../../../src/data-plane/stores/prediction-store.js";
import type { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import { linkKeyOf } from "../../../src/intelligence/recording/link-predictions.js";
import { jobRecord } from "../storage-fixture.js";
import {
  bearer,
  type IntelligenceFixture,
  openIntelligenceFixture,
  TOKENS,
  testApp,
  testService,
} from "./intelligence-fixture.js";

const GIB = 2 ** 30;
// Alice's job is submitted at 2026-12-01T00:00Z (minute 0); bob's at the same time.
const ALICE = jobRecord("hpc1", "9001", "alice", 0, { phase: "submitted" });
ALICE.spec = { ...ALICE.spec, jobName: "train", executable: "python train.py" };
const BOB = jobRecord("hpc1", "9002", "bob", 0);
BOB.spec = { ...BOB.spec, jobName: "train", executable: "python train.py" };

const memory = (value: number, jobs: number): ResourcePrediction => ({
  resource: "memory",
  status: "ok",
  unit: "bytes",
  value,
  low: value / 2,
  high: value,
  nominalLevel: 0.9,
  confidence: 0.9,
  evidence: { group: "user=alice,executable=python train.py", jobs },
});
const walltime: ResourcePrediction = {
  resource: "walltime",
  status: "insufficient_evidence",
  reasonCode: "too_few_similar_jobs",
  reason: "Only 2 similar jobs have ended.",
};

let n = 0;
function recorded(
  spec: JobSpec,
  at: string,
  version: string,
  resources: ResourcePrediction[],
  mode: "live" | "shadow" = "live",
): RecordedPrediction {
  n += 1;
  return {
    answer: {
      id: `advice-${n}`,
      createdAt: at,
      mode,
      modelVersion: version,
      cluster: spec.cluster,
      user: spec.user,
      resources: mode === "shadow" ? [] : resources,
    },
    resources,
    recommendations: [],
    spec,
    linkKey: linkKeyOf(spec),
    requestedBy: spec.user,
  };
}

describe("GET /v1/jobs/:id/advice-history over predictions recorded in PostgreSQL", () => {
  let f: IntelligenceFixture;
  let service: IntelligenceService;
  let app: FastifyInstance;

  beforeAll(async () => {
    f = await openIntelligenceFixture("intel-advice", 0);
    service = testService(f);
    await service.start();
    app = await testApp(f, service);
    const res = await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: bearer(TOKENS.collector),
      payload: { records: [ALICE, BOB] },
    });
    expect(res.json()).toEqual({ accepted: 2, duplicates: 0 });
    const models = new ModelStore<object, object>(f.fx.storage.pool);
    const model = (version: string, trainingJobs: number, dataEnd: string) => ({
      version,
      trigger: "test",
      manifestSha256: version === "m-1" ? "a".repeat(64) : "b".repeat(64),
      resources: ["memory" as const],
      trainingJobs,
      dataStart: "2026-08-01T00:00:00Z",
      dataEnd,
      backtest: {},
      decision: {},
    });
    await models.record(model("m-1", 4000, "2026-10-31T23:00:00Z"), true);
    await models.record(model("m-2", 4600, "2026-11-22T23:00:00Z"), true);
    const other = { ...ALICE.spec, jobName: "preprocess" };
    await insertPredictionRows(
      f.fx.storage.pool,
      predictionRows([
        recorded(ALICE.spec, "2026-11-20T09:00:00Z", "m-1", [memory(48 * GIB, 12), walltime]),
        recorded(ALICE.spec, "2026-11-21T09:00:00Z", "m-1", [memory(48 * GIB, 13), walltime]),
        recorded(ALICE.spec, "2026-11-25T09:00:00Z", "m-2", [memory(32 * GIB, 14), walltime]),
        // Shadow mode: recorded, shown to nobody.
        recorded(ALICE.spec, "2026-11-28T09:00:00Z", "m-2", [memory(24 * GIB, 16), walltime], "shadow"),
        // For a later submission, and for another job of alice's: not this job's advice.
        recorded(ALICE.spec, "2026-12-05T09:00:00Z", "m-2", [memory(16 * GIB, 20), walltime]),
        recorded(other, "2026-11-26T09:00:00Z", "m-2", [memory(2 * GIB, 3)]),
        recorded(BOB.spec, "2026-11-26T09:00:00Z", "m-2", [memory(8 * GIB, 5)]),
      ]),
    );
  });

  afterAll(async () => {
    await app?.close();
    await service?.stop();
    await f?.dispose();
  });

  async function get(url: string, token: string): Promise<AdviceHistory> {
    const res = await app.inject({ url, headers: bearer(token) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as AdviceHistory;
    expect(validators.AdviceHistory.validate(body)).toEqual({ ok: true, value: body });
    return body;
  }

  it("gives two entries when two model versions advised different values, the second naming both", async () => {
    const h = await get("/v1/jobs/9001/advice-history", TOKENS.alice);
    expect(h).toMatchObject({
      cluster: "hpc1",
      jobId: "9001",
      from: "2026-11-01T00:00:00.000Z",
      to: "2026-12-01T00:02:00.000Z",
      asked: 3,
    });
    expect(h.models.map((m) => [m.version, m.asked, m.trainingJobs, m.trainingDataEnd])).toEqual([
      ["m-1", 2, 4000, "2026-10-31T23:00:00.000Z"],
      ["m-2", 1, 4600, "2026-11-22T23:00:00.000Z"],
    ]);
    const [mem, wall] = h.resources;
    expect(mem.resource).toBe("memory");
    expect(mem.history.map((e) => [e.modelVersions, e.value, e.asked, e.causes])).toEqual([
      [["m-1"], 48 * GIB, 2, ["first"]],
      [["m-2"], 32 * GIB, 1, ["model_version"]],
    ]);
    const why = mem.history[1].why;
    expect(why).toMatch(/^Lowered from 48 GiB to 32 GiB: the model version changed from m-1 \(trained /);
    expect(why).toContain("on 4,000 jobs from 2026-08-01 to 2026-10-31) to m-2 (trained ");
    expect(why).toContain("on 4,600 jobs from 2026-08-01 to 2026-11-22)");
    // The walltime answer never changed: one entry, from both versions.
    expect(wall).toMatchObject({ resource: "walltime" });
    expect(wall.history).toHaveLength(1);
    expect(wall.history[0]).toMatchObject({
      modelVersions: ["m-1", "m-2"],
      asked: 3,
      status: "insufficient_evidence",
      reasonCode: "too_few_similar_jobs",
    });
  });

  it("shows the platform the shadow-mode advice too, marked, and why the same version changed", async () => {
    const h = await get("/v1/jobs/9001/advice-history?cluster=hpc1", TOKENS.platform);
    expect(h.asked).toBe(4);
    const third = h.resources[0].history[2];
    expect(third).toMatchObject({
      modelVersions: ["m-2"],
      value: 24 * GIB,
      shadow: true,
      causes: ["group_history"],
    });
    expect(third.why).toContain("the same model m-2 answered differently");
    expect(third.why).toContain("16 past jobs of user=alice,executable=python train.py instead of 14");
  });

  it("shows a researcher only their own jobs, as getJob does", async () => {
    for (const token of [TOKENS.bob, TOKENS.platformHpc2]) {
      const res = await app.inject({ url: "/v1/jobs/9001/advice-history", headers: bearer(token) });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: "NOT_FOUND", statusCode: 404 });
      // The same answer as for the job itself.
      expect((await app.inject({ url: "/v1/jobs/9001", headers: bearer(token) })).statusCode).toBe(404);
    }
    const own = await get("/v1/jobs/9002/advice-history", TOKENS.bob);
    expect(own.resources[0].history.map((e) => e.value)).toEqual([8 * GIB]);
    expect((await app.inject({ url: "/v1/jobs/9001/advice-history" })).statusCode).toBe(401);
    expect(
      (await app.inject({ url: "/v1/jobs/9001/advice-history", headers: bearer(TOKENS.collector) }))
        .statusCode,
    ).toBe(403);
  });

  it("answers an empty history for a job with no recorded advice, and 404 for no job", async () => {
    await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: bearer(TOKENS.collector),
      payload: { records: [jobRecord("hpc1", "9003", "alice", 5)] },
    });
    const h = await get("/v1/jobs/9003/advice-history", TOKENS.alice);
    expect(h).toMatchObject({ asked: 0, models: [], resources: [] });
    expect(
      (await app.inject({ url: "/v1/jobs/nope/advice-history", headers: bearer(TOKENS.alice) })).statusCode,
    ).toBe(404);
  });
});
