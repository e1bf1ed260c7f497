import {
  type JobRecord,
  type JobSpec,
  type Prediction,
  type PredictionRequest,
  validators,
} from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import type { TrainReport } from "../../../src/intelligence/training/model-trainer.js";
import {
  bearer,
  type IntelligenceFixture,
  openIntelligenceFixture,
  storedSpecs,
  TOKENS,
  testApp,
  testService,
} from "./intelligence-fixture.js";

const MIB = 2 ** 20;

/** A spec as a portal would send it before submission: no submit time (it is "now"). */
const fresh = (spec: JobSpec): JobSpec => {
  const { submitTime: _, ...rest } = spec;
  return rest;
};

describe("intelligence service over real PostgreSQL, ONNX Runtime and a local object store", () => {
  let f: IntelligenceFixture;
  let shadow: IntelligenceService;
  let live: IntelligenceService;
  let shadowApp: FastifyInstance;
  let liveApp: FastifyInstance;
  let report: TrainReport;
  let known: JobSpec[];

  beforeAll(async () => {
    f = await openIntelligenceFixture("intel-predict", 4000);
    shadow = testService(f);
    await shadow.start();
    report = await shadow.train({ trigger: "test" });
    live = testService(f, { mode: "live" });
    await live.start();
    shadowApp = await testApp(f, shadow);
    liveApp = await testApp(f, live);
    known = (await storedSpecs(f, 300)).map(fresh);
  });

  afterAll(async () => {
    await shadowApp?.close();
    await liveApp?.close();
    await shadow?.stop();
    await live?.stop();
    await f?.dispose();
  });

  /** POSTs a batch to the live server as `token`, expects 200, and returns the answers in order. */
  async function postBatch(requests: PredictionRequest[], token = TOKENS.platform): Promise<Prediction[]> {
    const res = await liveApp.inject({
      method: "POST",
      url: "/v1/predictions/batch",
      headers: bearer(token),
      payload: { requests },
    });
    expect(res.statusCode).toBe(200);
    return res.json().predictions as Prediction[];
  }

  it("trains from storage in a worker, stores the model files and a models row with its backtest", async () => {
    expect(report).toMatchObject({ trained: true, accepted: true, jobs: 4000 });
    expect(report.resources).toEqual(expect.arrayContaining(["memory", "walltime"]));
    expect(report.resources).not.toContain("gpus");
    expect(report.backtest.memory?.evaluated).toBeGreaterThan(100);
    const [model] = await shadow.models();
    expect(model).toMatchObject({ version: report.version, status: "active", trainingJobs: 4000 });
    expect(Date.parse(model.dataStart as string)).toBeLessThan(Date.parse(model.dataEnd as string));
    expect(await f.objects.has(model.manifestSha256)).toBe(true);
    // The second service found the active model in the registry and serves it.
    expect(live.activeVersion).toBe(report.version);
  });

  it("serves the ONNX model with exactly the TypeScript model's outcomes", async () => {
    const items = known.slice(0, 200).map((spec) => ({ spec }));
    const viaOnnx = await live.predictRaw(items, "onnx");
    const viaTs = await live.predictRaw(items, "typescript");
    let recommended = 0;
    viaOnnx.forEach((outcomes, i) => {
      outcomes.forEach((o, k) => {
        const t = viaTs[i][k];
        expect(o.prediction.status).toBe(t.prediction.status);
        if (o.prediction.status === "ok" && t.prediction.status === "ok") {
          recommended++;
          // ONNX Runtime hands out float32: equal to the TypeScript trees up to float32 rounding.
          expect(Math.abs(o.prediction.value / t.prediction.value - 1)).toBeLessThan(1e-5);
          expect(Math.abs(o.prediction.high / t.prediction.high - 1)).toBeLessThan(1e-5);
          expect(o.prediction.confidence).toBe(t.prediction.confidence);
        }
      });
    });
    expect(recommended).toBeGreaterThan(100);
  });

  it("in shadow mode answers no recommendation, with a notice, and records the prediction in full", async () => {
    const res = await shadowApp.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: bearer(TOKENS.platform),
      payload: { spec: known[0] },
    });
    expect(res.statusCode).toBe(200);
    const p = res.json() as Prediction;
    expect(validators.Prediction.validate(p).ok).toBe(true);
    expect(p).toMatchObject({
      mode: "shadow",
      resources: [],
      modelVersion: report.version,
      user: known[0].user,
    });
    expect(p.notice).toMatch(/shadow mode/i);
    const days = (Date.parse(p.shadowUntil as string) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29);
    expect(days).toBeLessThanOrEqual(30);
    await shadow.flush();
    const { rows } = await f.fx.storage.pool.query(
      "SELECT mode, model_version, resources::json AS resources, recommendations::json AS recommendations, spec::json AS spec FROM predictions WHERE id = $1",
      [p.id],
    );
    expect(rows[0]).toMatchObject({ mode: "shadow", model_version: report.version, spec: known[0] });
    expect(rows[0].resources.map((r: { resource: string }) => r.resource)).toEqual(
      expect.arrayContaining(["memory", "cores", "walltime"]),
    );
    const read = await shadowApp.inject({ url: `/v1/predictions/${p.id}`, headers: bearer(TOKENS.platform) });
    expect(read.json()).toEqual(p);
  });

  it("in live mode returns values rounded the way the scheduler takes them, with the request beside", async () => {
    const predictions = await postBatch(
      known.slice(0, 50).map((spec) => ({ spec })),
      TOKENS.scheduler,
    );
    expect(predictions).toHaveLength(50);
    predictions.forEach((p, i) => {
      expect(validators.Prediction.validate(p).ok).toBe(true);
      expect(p).toMatchObject({ mode: "live", user: known[i].user, cluster: "lanl" });
    });
    const all = predictions.flatMap((p) => p.resources);
    const memory = all.filter((r) => r.resource === "memory" && r.status === "ok");
    const walltime = all.filter((r) => r.resource === "walltime" && r.status === "ok");
    expect(memory.length).toBeGreaterThan(5);
    for (const r of memory) {
      if (r.status !== "ok") continue;
      expect(r.unit).toBe("bytes");
      expect(r.value % MIB).toBe(0);
      expect(r.evidence.jobs).toBeGreaterThan(0);
    }
    for (const r of walltime) if (r.status === "ok") expect(r.value % 60).toBe(0);
    const withRequest = all.filter((r) => r.resource === "cores");
    expect(withRequest.every((r) => r.requested !== undefined)).toBe(true);
    // The job asks for no GPU: nothing to predict, said so explicitly.
    expect(
      all
        .filter((r) => r.resource === "gpus")
        .every((r) => r.status === "insufficient_evidence" && r.reasonCode === "not_requested"),
    ).toBe(true);
  });

  it("says insufficient_evidence for a new user, and no_model for GPUs the history never used", async () => {
    const spec: JobSpec = {
      ...known[0],
      user: "newcomer",
      executable: "never-seen",
      requested: { ...known[0].requested, gpus: 2 },
    };
    const res = await liveApp.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: bearer(TOKENS.platform),
      payload: { spec },
    });
    const p = res.json() as Prediction;
    expect(validators.Prediction.validate(p).ok).toBe(true);
    const byResource = Object.fromEntries(p.resources.map((r) => [r.resource, r]));
    for (const name of ["memory", "cores", "walltime"]) {
      expect(byResource[name]).toMatchObject({
        status: "insufficient_evidence",
        reasonCode: "new_user_and_application",
      });
    }
    expect(byResource.gpus).toMatchObject({
      status: "insufficient_evidence",
      reasonCode: "no_model",
      requested: 2,
    });
    expect(byResource.gpus.status === "insufficient_evidence" && byResource.gpus.reason).toMatch(
      /completed jobs with measured gpus/,
    );
  });

  it("learns from jobs that end while it runs, at its next refresh", async () => {
    const spec: JobSpec = { ...known[0], user: "late-joiner", executable: "sim" };
    const ask = async () =>
      (
        (
          await liveApp.inject({
            method: "POST",
            url: "/v1/predictions",
            headers: bearer(TOKENS.platform),
            payload: { spec },
          })
        ).json() as Prediction
      ).resources.find((r) => r.resource === "memory");
    expect(await ask()).toMatchObject({
      status: "insufficient_evidence",
      reasonCode: "new_user_and_application",
    });
    const start = Date.now() - 3_600_000;
    const records: JobRecord[] = Array.from({ length: 6 }, (_, i) => ({
      cluster: "lanl",
      jobId: `late-${i}`,
      phase: "ended",
      source: "slurm-controller",
      spec,
      submittedAt: new Date(start + i * 60_000).toISOString(),
      startedAt: new Date(start + i * 60_000 + 1000).toISOString(),
      endedAt: new Date(start + i * 60_000 + 30_000).toISOString(),
      outcome: { state: "COMPLETED", exitCode: 0 },
      peaks: { memoryBytes: (100 + i) * MIB, runTimeSeconds: 29 },
    }));
    await liveApp.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: bearer(TOKENS.collectorLanl),
      payload: { records },
    });
    await live.refresh();
    const after = await ask();
    expect(after?.status === "ok" || after?.reasonCode !== "new_user_and_application").toBe(true);
    if (after?.status === "ok") expect(after.evidence.jobs).toBe(6);
  });

  it("answers a resent idempotency key with the first prediction", async () => {
    const payload = { spec: known[1], idempotencyKey: "portal-req-000123" };
    const a = (
      await liveApp.inject({
        method: "POST",
        url: "/v1/predictions",
        headers: bearer(TOKENS.platform),
        payload,
      })
    ).json();
    await live.flush();
    const b = (
      await liveApp.inject({
        method: "POST",
        url: "/v1/predictions",
        headers: bearer(TOKENS.platform),
        payload,
      })
    ).json();
    expect(b.id).toBe(a.id);
    // Also inside one batch, and for a key still waiting to be written.
    const other = { spec: known[2], idempotencyKey: "portal-req-000124" };
    const [c, d, e] = await postBatch([other, payload, other]);
    expect(d.id).toBe(a.id);
    expect(e.id).toBe(c.id);
    await live.flush();
    const { rows } = await f.fx.storage.pool.query(
      "SELECT count(*)::int AS n FROM predictions WHERE idempotency_key LIKE 'portal-req-%'",
    );
    expect(rows[0].n).toBe(2);
  });

  it("answers a batch larger than a slice in request order, keys repeated across slices included", async () => {
    // 300 requests: three slices of the service's 128. A key first used in the first slice comes
    // back in the third; one already answered before the batch is found, not predicted again.
    const before = (
      await liveApp.inject({
        method: "POST",
        url: "/v1/predictions",
        headers: bearer(TOKENS.platform),
        payload: { spec: known[5], idempotencyKey: "slices-before" },
      })
    ).json() as Prediction;
    const requests = known.slice(0, 300).map((spec, i) => {
      if (i === 3 || i === 290) return { spec: known[3], idempotencyKey: "slices-first" };
      if (i === 200) return { spec: known[5], idempotencyKey: "slices-before" };
      return { spec };
    });
    const answers = await postBatch(requests);
    expect(answers).toHaveLength(300);
    answers.forEach((a, i) => {
      expect(validators.Prediction.validate(a).ok).toBe(true);
      expect(a.user).toBe(requests[i].spec.user);
    });
    expect(answers[290].id).toBe(answers[3].id);
    expect(answers[200].id).toBe(before.id);
    // 300 answers, one repeat inside the batch: 299 predictions (298 made now, one found).
    expect(new Set(answers.map((a) => a.id)).size).toBe(299);
    // Each one recorded once, and readable as answered.
    await live.flush();
    const ids = [...new Set(answers.map((a) => a.id))];
    const { rows } = await f.fx.storage.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM predictions WHERE id = ANY($1::text[])",
      [ids],
    );
    expect(rows[0].n).toBe(299);
    const read = await liveApp.inject({
      method: "GET",
      url: `/v1/predictions/${answers[250].id}`,
      headers: bearer(TOKENS.platform),
    });
    expect(read.json()).toEqual(answers[250]);
  });

  it("predicts a job asked for many times in a batch once: the same outcome under an id of its own", async () => {
    // Three kinds across three slices: a job, another, and the first asking for memory only.
    const requests = Array.from({ length: 390 }, (_, i) =>
      i % 3 === 0
        ? { spec: known[7] }
        : i % 3 === 1
          ? { spec: known[8] }
          : { spec: known[7], resources: ["memory" as const] },
    );
    const answers = await postBatch(requests);
    expect(new Set(answers.map((a) => a.id)).size).toBe(390);
    const full = answers.filter((_, i) => i % 3 === 0);
    const memoryOnly = answers.filter((_, i) => i % 3 === 2);
    for (const a of full) expect(a.resources).toEqual(full[0].resources);
    for (const a of memoryOnly) expect(a.resources).toEqual(memoryOnly[0].resources);
    expect(memoryOnly[0].resources.map((r) => r.resource)).toEqual(["memory"]);
    expect(full[0].resources.map((r) => r.resource)).toEqual(
      expect.arrayContaining(["memory", "cores", "walltime"]),
    );
    expect(memoryOnly[0].resources[0]).toEqual(full[0].resources.find((r) => r.resource === "memory"));
    expect(answers[1].user).toBe(known[8].user);
    // Every request recorded as its own prediction, with the spec it was asked for.
    await live.flush();
    const { rows } = await f.fx.storage.pool.query<{ id: string; spec: JobSpec; resources: unknown }>(
      "SELECT id, spec::json AS spec, resources::json AS resources FROM predictions WHERE id = ANY($1::text[])",
      [answers.map((a) => a.id)],
    );
    expect(rows).toHaveLength(390);
    const byId = new Map(rows.map((r) => [r.id, r]));
    answers.forEach((a, i) => {
      expect(byId.get(a.id)?.spec).toEqual(requests[i].spec);
      expect(byId.get(a.id)?.resources).toEqual(a.resources);
    });
    const read = await liveApp.inject({
      url: `/v1/predictions/${answers[389].id}`,
      headers: bearer(TOKENS.platform),
    });
    expect(read.json()).toEqual(answers[389]);
  });

  it("answers a batch of more distinct jobs than it keeps, jobs and keys repeated across windows included", async () => {
    // 1,100 distinct jobs (more than the 1,024 a batch keeps and predicts in one window), then
    // the first 200 again: the window where the kept outcomes are let go also holds requests
    // answered from them. An idempotency key of the first window comes back in the second.
    const jobs = Array.from({ length: 1100 }, (_, i) => ({ ...known[i % 50], jobName: `sweep-${i}` }));
    const requests: PredictionRequest[] = [...jobs, ...jobs.slice(0, 200)].map((spec) => ({ spec }));
    requests[10] = { spec: jobs[10], idempotencyKey: "window-key" };
    requests[1250] = { spec: jobs[10], idempotencyKey: "window-key" };
    const answers = await postBatch(requests);
    expect(answers).toHaveLength(1300);
    expect(answers[1250]).toEqual(answers[10]);
    expect(new Set(answers.map((a) => a.id)).size).toBe(1299);
    for (let i = 0; i < 200; i++) {
      if (i !== 150) expect(answers[1100 + i].resources).toEqual(answers[i].resources);
    }
    answers.forEach((a, i) => {
      expect(a.user).toBe(requests[i].spec.user);
    });
    // Every prediction made recorded once, with the spec it was asked for.
    await live.flush();
    const { rows } = await f.fx.storage.pool.query<{ id: string; spec: JobSpec }>(
      "SELECT id, spec::json AS spec FROM predictions WHERE id = ANY($1::text[])",
      [answers.map((a) => a.id)],
    );
    expect(rows).toHaveLength(1299);
    const specs = new Map(rows.map((r) => [r.id, r.spec]));
    answers.forEach((a, i) => {
      expect(specs.get(a.id)).toEqual(requests[i].spec);
    });
  });

  it("lets the event loop turn between the slices of a large batch", async () => {
    // A timer due at once fires while a batch of 1,000 is answered, not after it: other
    // requests, health checks and the prediction log's writes do not wait for the whole batch.
    const requests = Array.from({ length: 1000 }, (_, i) => ({ spec: known[i % 50] }));
    let answered = 0;
    let answeredWhenTimerFired: number | undefined;
    setTimeout(() => {
      answeredWhenTimerFired = answered;
    }, 0);
    await live.predictEach(requests, "ops", () => {
      answered++;
    });
    expect(answered).toBe(1000);
    expect(answeredWhenTimerFired).toBeGreaterThan(0);
    expect(answeredWhenTimerFired).toBeLessThan(1000);
  });

  it("lets a researcher predict only their own jobs and read only their own predictions", async () => {
    const spec = { ...known[0], user: "alice" };
    const own = await liveApp.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: bearer(TOKENS.alice),
      payload: { spec },
    });
    expect(own.statusCode).toBe(200);
    const other = await liveApp.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: bearer(TOKENS.alice),
      payload: { spec: known[0] },
    });
    expect(other.statusCode).toBe(403);
    expect(other.json().errors).toEqual([{ path: "/spec/user", message: "must be alice for this token" }]);
    const byBob = await liveApp.inject({
      url: `/v1/predictions/${own.json().id}`,
      headers: bearer(TOKENS.bob),
    });
    expect(byBob.statusCode).toBe(404);
    const wrongCluster = await liveApp.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: bearer(TOKENS.platformHpc2),
      payload: { spec: known[0] },
    });
    expect(wrongCluster.statusCode).toBe(403);
  });

  it("stores the policy, applies it to live predictions and says which rule changed what", async () => {
    const bad = await liveApp.inject({
      method: "PUT",
      url: "/v1/policy",
      headers: bearer(TOKENS.platform),
      payload: { name: "bad", floors: { memory: 8 * MIB }, caps: { memory: 4 * MIB } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe("/floors/memory");
    const byResearcher = await liveApp.inject({
      method: "PUT",
      url: "/v1/policy",
      headers: bearer(TOKENS.alice),
      payload: { name: "x" },
    });
    expect(byResearcher.statusCode).toBe(403);
    const policy = { name: "tight", caps: { memory: 2 * MIB } };
    const put = await liveApp.inject({
      method: "PUT",
      url: "/v1/policy",
      headers: bearer(TOKENS.platform),
      payload: policy,
    });
    expect(put.statusCode).toBe(200);
    expect((await liveApp.inject({ url: "/v1/policy", headers: bearer(TOKENS.scheduler) })).json()).toEqual(
      policy,
    );
    // Another server reads it on its next refresh.
    await shadow.refresh();
    expect(shadow.policy()).toEqual(policy);
    const answers = await postBatch(
      known
        .slice(0, 40)
        .map((spec) => ({ spec: { ...spec, requested: { ...spec.requested, memoryBytes: MIB } } })),
    );
    const capped = answers
      .flatMap((p) => p.resources)
      .filter(
        (r) => r.resource === "memory" && r.status === "ok" && r.adjustments?.some((a) => a.rule === "cap"),
      );
    expect(capped.length).toBeGreaterThan(0);
    for (const r of capped) if (r.status === "ok") expect(r.value).toBeLessThanOrEqual(2 * MIB);
    await liveApp.inject({
      method: "PUT",
      url: "/v1/policy",
      headers: bearer(TOKENS.platform),
      payload: { name: "default" },
    });
  });

  it("reports accuracy once the predicted jobs have ended, per resource, partition and week", async () => {
    const specs = known.slice(100, 130).map((s, i) => ({ ...s, jobName: `acc-${i}` }));
    const predictions = await postBatch(
      specs.map((spec) => ({ spec })),
      TOKENS.scheduler,
    );
    const now = Date.now();
    const records: JobRecord[] = specs.map((spec, i) => ({
      cluster: "lanl",
      jobId: `acc-${i}`,
      phase: "ended",
      source: "slurm-controller",
      spec,
      submittedAt: new Date(now + 30_000).toISOString(),
      startedAt: new Date(now + 60_000).toISOString(),
      endedAt: new Date(now + 3_660_000).toISOString(),
      outcome: { state: "COMPLETED", exitCode: 0 },
      peaks: { memoryBytes: 64 * MIB, runTimeSeconds: 3600, coresUsed: 1 },
    }));
    const ingest = await liveApp.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: bearer(TOKENS.collectorLanl),
      payload: { records },
    });
    expect(ingest.json()).toEqual({ accepted: 30, duplicates: 0 });
    const acc = await liveApp.inject({ url: "/v1/accuracy?cluster=lanl", headers: bearer(TOKENS.platform) });
    expect(acc.statusCode).toBe(200);
    const body = acc.json();
    expect(validators.AccuracyReport.validate(body).ok).toBe(true);
    expect(body.mode).toBe("live");
    const overallMemory = body.slices.find(
      (s: { resource: string; partition?: string; weekStart?: string }) =>
        s.resource === "memory" && !s.partition && !s.weekStart,
    );
    expect(overallMemory.predicted).toBe(30);
    const recommendedMemory = predictions.filter((p) =>
      p.resources.some((r) => r.resource === "memory" && r.status === "ok"),
    ).length;
    expect(overallMemory.recommended).toBe(recommendedMemory);
    expect(body.slices.some((s: { partition?: string }) => s.partition !== undefined)).toBe(true);
    expect(body.slices.some((s: { weekStart?: string }) => s.weekStart !== undefined)).toBe(true);
    expect(body.readiness.ready).toBe(false);
    expect(body.readiness.reasons.join(" ")).toMatch(/only 30 ended jobs/);
    const researcher = await liveApp.inject({ url: "/v1/accuracy", headers: bearer(TOKENS.alice) });
    expect(researcher.statusCode).toBe(403);
  });
});
