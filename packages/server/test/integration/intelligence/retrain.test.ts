import { monitorEventLoopDelay } from "node:perf_hooks";
import type { JobSpec, Prediction } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import {
  bearer,
  FAST_TRAINING,
  type IntelligenceFixture,
  openIntelligenceFixture,
  storedSpecs,
  TOKENS,
  testApp,
  testService,
} from "./intelligence-fixture.js";

describe("retraining: versioned models, refusal of a worse one, rollback", () => {
  let f: IntelligenceFixture;
  let service: IntelligenceService;
  let app: FastifyInstance;
  let specs: JobSpec[];
  const warnings: string[] = [];

  beforeAll(async () => {
    f = await openIntelligenceFixture("intel-retrain", 3000);
    service = testService(f, {
      mode: "live",
      log: { info: () => {}, error: () => {}, warn: (_o, message) => warnings.push(message) },
    });
    await service.start();
    app = await testApp(f, service);
    specs = await storedSpecs(f, 20);
  });

  afterAll(async () => {
    await app?.close();
    await service?.stop();
    await f?.dispose();
  });

  const predictVersion = async () => {
    const res = await app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: bearer(TOKENS.platform),
      payload: { spec: specs[0] },
    });
    return (res.json() as Prediction).modelVersion;
  };

  it("answers no_model for everything before the first model, without guessing", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: bearer(TOKENS.platform),
      payload: { spec: specs[0] },
    });
    const p = res.json() as Prediction;
    expect(p.modelVersion).toBe("none");
    expect(p.resources.every((r) => r.status === "insufficient_evidence")).toBe(true);
    for (const r of p.resources.filter((x) => ["memory", "cores", "walltime"].includes(x.resource))) {
      expect(r).toMatchObject({
        reasonCode: "no_model",
        reason: "no model has been trained on this site's jobs yet",
      });
    }
  });

  it("keeps serving predictions while a model trains in the worker thread", async () => {
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const training = service.train({ trigger: "test" });
    let done = false;
    void training.then(() => {
      done = true;
    });
    let servedDuringTraining = 0;
    while (!done) {
      const res = await app.inject({
        method: "POST",
        url: "/v1/predictions",
        headers: bearer(TOKENS.platform),
        payload: { spec: specs[1] },
      });
      expect(res.statusCode).toBe(200);
      if (!done) servedDuringTraining++;
      await new Promise((r) => setTimeout(r, 20));
    }
    lag.disable();
    const report = await training;
    expect(report).toMatchObject({ trained: true, accepted: true });
    expect(warnings).toEqual([]);
    expect(servedDuringTraining).toBeGreaterThan(3);
    // On the event loop, the training's CPU time would have blocked it in one piece.
    expect(lag.max / 1e9).toBeLessThan((report.trainSeconds as number) / 2);
    expect(await predictVersion()).toBe(report.version);
  });

  it("records a model that backtests worse as rejected, and keeps the active one", async () => {
    const before = service.activeVersion;
    // Calibrated to let a quarter of the jobs (and of the usage) need more: a badly set up model.
    const worse = await service.train({
      trigger: "test",
      training: { ...FAST_TRAINING, conformal: { missRate: 0.25, usageMissRate: 0.25 } },
    });
    expect(worse).toMatchObject({ trained: true, accepted: false });
    expect(worse.decision?.comparedWith).toBe(before);
    expect(worse.decision?.reasons.join(" ")).toMatch(/under-prediction/);
    expect(service.activeVersion).toBe(before);
    const models = await service.models();
    expect(models.find((m) => m.version === worse.version)).toMatchObject({ status: "rejected" });
    expect(models.find((m) => m.version === before)).toMatchObject({ status: "active" });
    expect(await predictVersion()).toBe(before);
  });

  it("puts a new model that backtests as well into service, and rolls back to the previous one", async () => {
    const first = service.activeVersion as string;
    const second = await service.train({ trigger: "test", training: FAST_TRAINING });
    expect(second).toMatchObject({ trained: true, accepted: true });
    expect(service.activeVersion).toBe(second.version);
    expect(await predictVersion()).toBe(second.version);
    expect(await service.rollback()).toBe(first);
    expect(service.activeVersion).toBe(first);
    expect(await predictVersion()).toBe(first);
    const models = await service.models();
    expect(models.find((m) => m.version === second.version)?.status).toBe("rolled_back");
    expect(models.filter((m) => m.status === "active").map((m) => m.version)).toEqual([first]);
  });

  it("lets only one server train at a time, and the others serve its model after their next refresh", async () => {
    const other = testService(f);
    try {
      const [a, b] = await Promise.all([
        service.train({ trigger: "test" }),
        other.train({ trigger: "test" }),
      ]);
      expect([a.trained, b.trained].sort()).toEqual([false, true]);
      expect([a.reason, b.reason]).toContain("another server is training");
      // A second model, trained by the other server, goes into service there.
      const second = await other.train({ trigger: "test" });
      expect(second.accepted).toBe(true);
      expect(service.activeVersion).not.toBe(second.version);
      await service.refresh();
      expect(service.activeVersion).toBe(second.version);
      expect(await predictVersion()).toBe(second.version);
    } finally {
      await other.stop();
    }
  });
});
