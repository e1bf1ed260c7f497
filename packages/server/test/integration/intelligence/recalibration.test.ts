import type { JobSpec, Prediction } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import { ModelRegistry } from "../../../src/intelligence/registry/model-registry.js";
import {
  bearer,
  type IntelligenceFixture,
  importLanlJobs,
  openIntelligenceFixture,
  storedSpecs,
  TOKENS,
  testApp,
  testService,
} from "./intelligence-fixture.js";

describe("recalibration: the model in service follows the jobs that ended since it was trained", () => {
  let f: IntelligenceFixture;
  let service: IntelligenceService;
  let app: FastifyInstance;
  let specs: JobSpec[];
  let trained: string;

  beforeAll(async () => {
    f = await openIntelligenceFixture("intel-recal", 2500);
    service = testService(f, { mode: "live", trainIn: "inline" });
    await service.start();
    app = await testApp(f, service);
    const report = await service.train({ trigger: "test" });
    expect(report).toMatchObject({ trained: true, accepted: true });
    trained = report.version as string;
    specs = await storedSpecs(f, 5);
  });

  afterAll(async () => {
    await app?.close();
    await service?.stop();
    await f?.dispose();
  });

  const predict = async () => {
    const res = await app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: bearer(TOKENS.platform),
      payload: { spec: specs[0] },
    });
    expect(res.statusCode).toBe(200);
    return res.json() as Prediction;
  };

  it("does nothing while no job has ended since the training", async () => {
    const report = await service.recalibrate("test");
    expect(report).toMatchObject({ recalibrated: false, from: trained });
    expect(report.reason).toMatch(/^0 jobs ended since the last calibration \(50 needed\)$/);
    expect(service.activeVersion).toBe(trained);
  });

  it("serves the next calibration revision of the same trees once jobs have ended", async () => {
    await importLanlJobs(f, "intel-recal", 2500, 600);
    await service.refresh();
    const report = await service.recalibrate("test");
    expect(report.recalibrated).toBe(true);
    expect(report.version).toBe(`${trained}.c1`);
    expect((report.newJobs.memory ?? 0) + (report.newJobs.walltime ?? 0)).toBeGreaterThan(50);
    expect(service.activeVersion).toBe(`${trained}.c1`);
    expect((await predict()).modelVersion).toBe(`${trained}.c1`);

    const models = await service.models();
    const row = models.find((m) => m.version === `${trained}.c1`);
    expect(row).toMatchObject({ status: "active", trigger: "recalibration" });
    expect(row?.decision).toMatchObject({ accepted: true, comparedWith: trained });
    expect(models.find((m) => m.version === trained)?.status).toBe("retired");

    // Same trees: the ONNX files are the very ones of the trained version, only the calibration moved.
    const registry = new ModelRegistry(f.fx.storage.pool, f.objects);
    const before = await registry.manifest(
      models.find((m) => m.version === trained)?.manifestSha256 as string,
    );
    const after = await registry.manifest(row?.manifestSha256 as string);
    expect(after.recalibration).toMatchObject({ trained, revision: 1 });
    for (const name of Object.keys(before.resources) as (keyof typeof before.resources)[]) {
      expect(after.resources[name]?.onnxSha256).toBe(before.resources[name]?.onnxSha256);
      expect(after.resources[name]?.model.centre).toEqual(before.resources[name]?.model.centre);
      expect(after.resources[name]?.model.calibratedAt).toBeGreaterThan(
        before.resources[name]?.model.trainedAt as number,
      );
    }
  });

  it("numbers past a revision a rollback left behind", async () => {
    expect(await service.rollback()).toBe(trained);
    await importLanlJobs(f, "intel-recal", 3100, 300);
    await service.refresh();
    const report = await service.recalibrate("test");
    expect(report.version).toBe(`${trained}.c2`);
    expect(service.activeVersion).toBe(`${trained}.c2`);
  });

  it("lets a recalibration wait for a training in progress and never recalibrates a replaced model", async () => {
    const [training, recalibration] = await Promise.all([
      service.train({ trigger: "test" }),
      service.recalibrate("test"),
    ]);
    expect(training.trained).toBe(true);
    // It ran after the training (side by side, the training lock would have refused one of them),
    // on whichever model was then in service, with no job ended since.
    expect(recalibration).toMatchObject({ recalibrated: false, from: service.activeVersion });
    expect(recalibration.reason).toMatch(/^0 jobs ended since the last calibration/);

    // Another server puts a model into service whatever its backtest (loosest thresholds).
    const loose = { coverageTolerance: 1, slackRelativeTolerance: 1e9, slackAbsoluteTolerance: 1e9 };
    const other = testService(f, { trainIn: "inline", comparison: loose });
    try {
      await other.start();
      const retrained = await other.train({ trigger: "test" });
      expect(retrained.accepted).toBe(true);
      await importLanlJobs(f, "intel-recal", 3400, 200);
      // This server still serves the older model until its refresh: it must not put it back.
      const stale = await service.recalibrate("test");
      expect(stale).toMatchObject({
        recalibrated: false,
        reason: "the model in service changed; nothing recalibrated",
      });
      await service.refresh();
      expect(service.activeVersion).toBe(retrained.version);
    } finally {
      await other.stop();
    }
  });
});
