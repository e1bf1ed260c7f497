import { describe, expect, it } from "vitest";
import { applyConformal } from "../calibration/conformal-table.js";
import { restateConfidence } from "../calibration/delivered-confidence.js";
import { buildFeatureTable } from "../features/feature-table.js";
import type { HistoryJob } from "../history-job.js";
import { centreAndSpread, type ResourceModel } from "../model/resource-model.js";
import { evaluateEnsemble } from "../model/tree-ensemble.js";
import type { ModelManifest } from "../registry/model-manifest.js";
import { resourceSpec } from "../resources.js";
import { mulberry32 } from "./quantile-gbdt.js";
import { recalibrateCandidate } from "./recalibrate-candidate.js";
import { trainCandidate } from "./train-candidate.js";

const GIB = 2 ** 30;
const START = 1_700_000_000;

/** Jobs `from`..`to` of ten users, each with its own memory size; from `driftFrom` on, they all use 1.6× more. */
function jobs(from: number, to: number, driftFrom: number): HistoryJob[] {
  const out: HistoryJob[] = [];
  for (let i = from; i < to; i++) {
    const rng = mulberry32(1000 + i);
    const user = i % 10;
    const t = START + i * 60;
    const size =
      (1 + user) * GIB * Math.exp(0.25 * (rng() + rng() + rng() - 1.5)) * (i >= driftFrom ? 1.6 : 1);
    out.push({
      id: String(i),
      submitTime: t,
      startTime: t,
      endTime: t + 30,
      user: `u${user}`,
      executable: `app${user}`,
      requested: { memoryBytes: 16 * GIB, cores: 1, walltimeSeconds: 3600 },
      used: { memoryBytes: size },
      outcome: "completed",
    });
  }
  return out;
}

/** Share of `evaluated` jobs whose memory stays within the value the manifest's memory model gives them. */
function coverage(manifest: ModelManifest, history: HistoryJob[], evaluated: number): number {
  const model = manifest.resources.memory?.model as ResourceModel;
  const table = buildFeatureTable(history, resourceSpec("memory"));
  const F = table.featureNames.length;
  let covered = 0;
  for (let i = table.rows - evaluated; i < table.rows; i++) {
    const row = table.x.subarray(i * F, (i + 1) * F);
    const { m, s } = centreAndSpread(model, (e) => evaluateEnsemble(e, row));
    const r = applyConformal(model.calibration, m, s, table.logRequest[i], false);
    if (table.y[i] <= r.logValue) covered++;
  }
  return covered / evaluated;
}

describe("recalibrateCandidate: the calibration follows the site between trainings", () => {
  const trained = jobs(0, 3000, 3000);
  const base = trainCandidate(trained, {
    version: "v1",
    createdAt: "2026-12-01T00:00:00Z",
    training: { trees: 20, maxDepth: 4 },
    minJobs: 200,
    holdoutShare: 0,
    minComparisonJobs: 50,
  }).manifest;
  const since = jobs(3000, 4500, 3000);
  const later = jobs(4500, 5500, 3000);

  it("refits on the jobs that ended since, keeps the trees, and covers the drifted jobs again", () => {
    const result = recalibrateCandidate([...trained, ...since], {
      version: "v1.c1",
      createdAt: "2026-12-02T00:00:00Z",
      base,
      minNewJobs: 50,
    });
    const next = result.manifest as ModelManifest;
    expect(next.version).toBe("v1.c1");
    expect(next.recalibration).toEqual({ trained: "v1", revision: 1, newJobs: { memory: 1500 } });
    const before = base.resources.memory?.model as ResourceModel;
    const after = next.resources.memory?.model as ResourceModel;
    expect(after.centre).toBe(before.centre);
    expect(after.upper).toBe(before.upper);
    expect(next.resources.memory?.onnxSha256).toBe(base.resources.memory?.onnxSha256);
    expect(after.calibratedAt).toBe(since[since.length - 1].endTime);
    // The last 15k jobs the trees never saw: the training's held-out share and every new one.
    expect(result.examples.memory).toBeGreaterThan(1500);
    const all = [...trained, ...since, ...later];
    const old = coverage(base, all, later.length);
    const fresh = coverage(next, all, later.length);
    expect(old).toBeLessThan(0.8);
    expect(fresh).toBeGreaterThan(0.88);
    expect(fresh - old).toBeGreaterThan(0.1);
  });

  it("makes no new version when too few jobs ended since the last calibration", () => {
    const once = recalibrateCandidate([...trained, ...since], {
      version: "v1.c1",
      createdAt: "2026-12-02T00:00:00Z",
      base,
      minNewJobs: 50,
    }).manifest as ModelManifest;
    const again = recalibrateCandidate([...trained, ...since, ...later.slice(0, 20)], {
      version: "v1.c2",
      createdAt: "2026-12-02T01:00:00Z",
      base: once,
      minNewJobs: 50,
    });
    expect(again.manifest).toBeUndefined();
    expect(again.newJobs).toEqual({ memory: 20 });
  });

  it("leaves a model alone when it cannot tell which jobs its trees saw", () => {
    const memory = base.resources.memory;
    if (!memory) throw new Error("no memory model");
    const { trainingEnd: _, ...older } = memory.model;
    const legacy: ModelManifest = { ...base, resources: { memory: { ...memory, model: older } } };
    const result = recalibrateCandidate([...trained, ...since], {
      version: "v1.c1",
      createdAt: "2026-12-02T00:00:00Z",
      base: legacy,
      minNewJobs: 0,
    });
    expect(result.manifest?.resources.memory).toBe(legacy.resources.memory);
    expect(result.newJobs).toEqual({});
  });

  it("records what the table in service stated and delivered on the drifted jobs, and states that", () => {
    const served = base.resources.memory?.model as ResourceModel;
    expect(served.calibration.delivered).toBeUndefined();
    const next = recalibrateCandidate([...trained, ...since], {
      version: "v1.c1",
      createdAt: "2026-12-02T00:00:00Z",
      base,
      minNewJobs: 50,
    }).manifest as ModelManifest;
    const table = (next.resources.memory as { model: ResourceModel }).model.calibration;
    const record = table.delivered;
    if (!record || !table.restated) throw new Error("no record of what was delivered");
    const jobs = record.jobs.reduce((a, b) => a + b, 0);
    const met = record.met.reduce((a, b) => a + b, 0);
    const stated = record.stated.reduce((a, b) => a + b, 0);
    // The 1,500 drifted jobs, less those the table abstained on; they broke its promises.
    expect(jobs).toBeGreaterThan(1000);
    expect(jobs).toBeLessThanOrEqual(1500);
    expect(met / jobs).toBeLessThan(stated / jobs - 0.05);
    // What it states for such a promise now is what such promises delivered.
    expect(restateConfidence(table, stated / jobs)).toBeCloseTo(met / jobs, 1);
    // A retraining carries the record of the model it replaces, with what ended since added.
    const retrained = trainCandidate([...trained, ...since, ...later], {
      version: "v2",
      createdAt: "2026-12-03T00:00:00Z",
      training: { trees: 20, maxDepth: 4 },
      minJobs: 200,
      holdoutShare: 0,
      minComparisonJobs: 50,
      active: { memory: next.resources.memory?.model as ResourceModel },
    }).manifest;
    const carried = (retrained.resources.memory as { model: ResourceModel }).model.calibration.delivered;
    expect(carried?.jobs.reduce((a, b) => a + b, 0)).toBeGreaterThan(jobs + 500);
  });
});
