import type { ResourceName } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { FeatureBuilder } from "../features/feature-builder.js";
import { describeGroup } from "../features/group-keys.js";
import type { HistoryJob } from "../history-job.js";
import type { ResourceModel } from "../model/resource-model.js";
import { resourceSpec } from "../resources.js";
import { predictResource, type ResourcePrediction } from "../serving/predictor.js";
import { mulberry32 } from "./quantile-gbdt.js";
import { trainJobModels } from "./train-job-models.js";

/** The trained models applied the way the backtest does: features of the history so far, then the predictor. */
class PredictorOverHistory {
  readonly #builders = new Map<ResourceName, FeatureBuilder>();

  constructor(readonly models: Partial<Record<ResourceName, ResourceModel>>) {
    for (const name of Object.keys(models) as ResourceName[]) {
      this.#builders.set(name, new FeatureBuilder(resourceSpec(name)));
    }
  }

  observeEnded(job: HistoryJob): void {
    for (const b of this.#builders.values()) b.observeEnded(job);
  }

  predict(job: HistoryJob): Partial<Record<ResourceName, ResourcePrediction>> {
    const out: Partial<Record<ResourceName, ResourcePrediction>> = {};
    for (const [name, builder] of this.#builders) {
      const row = builder.features(job);
      const summary = builder.summary(job, 3);
      out[name] = predictResource(this.models[name] as ResourceModel, row, {
        request: builder.spec.request(job),
        userJobs: Math.round(Math.expm1(row[builder.names.indexOf("user_count")])),
        evidence: summary
          ? {
              group: describeGroup(job, summary.level),
              jobs: summary.jobs,
              censoredJobs: summary.censoredJobs,
              since: summary.since,
            }
          : undefined,
      });
    }
    return out;
  }
}

const GIB = 2 ** 30;

/** Two users: "steady" always uses 4 GiB, "erratic" anything from 0.1 to 60 GiB. */
function history(n: number): HistoryJob[] {
  const rng = mulberry32(11);
  return Array.from({ length: n }, (_, i) => {
    const steady = i % 2 === 0;
    const t = 1_700_000_000 + i * 60;
    return {
      id: String(i),
      submitTime: t,
      startTime: t,
      endTime: t + 30,
      user: steady ? "steady" : "erratic",
      executable: steady ? "solver" : "notebook",
      requested: { memoryBytes: 64 * GIB, cores: 8, walltimeSeconds: 3600 },
      used: {
        memoryBytes: steady ? 4 * GIB * (1 + 0.01 * rng()) : GIB * 0.1 * 600 ** rng(),
        walltimeSeconds: 30,
      },
      outcome: "completed" as const,
    };
  });
}

describe("trainJobModels, served over the history so far", () => {
  const jobs = history(3000);
  const models = trainJobModels(jobs, { minJobs: 100, trees: 20 });

  it("gives a tight, confident recommendation to a repetitive group and refuses a wide guess", () => {
    const predictor = new PredictorOverHistory(models);
    for (const j of jobs) predictor.observeEnded(j);
    const next = (user: string, executable: string): HistoryJob => ({
      ...jobs[0],
      id: "new",
      submitTime: jobs[jobs.length - 1].endTime + 60,
      user,
      executable,
    });
    const steady = predictor.predict(next("steady", "solver")).memory;
    expect(steady?.status).toBe("ok");
    if (steady?.status === "ok") {
      expect(steady.value).toBeGreaterThanOrEqual(4.04 * GIB);
      expect(steady.value).toBeLessThan(6 * GIB);
      expect(steady.low).toBeLessThanOrEqual(steady.high);
      expect(steady.confidence).toBeGreaterThan(0.95);
      expect(steady.evidence.group).toContain("user=steady");
      expect(steady.evidence.jobs).toBeGreaterThanOrEqual(32);
    }
    const erratic = predictor.predict(next("erratic", "notebook")).memory;
    if (erratic?.status === "ok") expect(erratic.value).toBeGreaterThan(20 * GIB);
    else expect(erratic?.reasonCode).toBe("too_uncertain");
    expect(predictor.predict(next("newcomer", "x")).memory).toMatchObject({
      status: "insufficient_evidence",
      reasonCode: "new_user_and_application",
    });
  });

  it("keeps the model as plain data that survives a JSON round trip", () => {
    const copy = JSON.parse(JSON.stringify(models));
    const a = new PredictorOverHistory(models);
    const b = new PredictorOverHistory(copy);
    for (const j of jobs) {
      a.observeEnded(j);
      b.observeEnded(j);
    }
    const probe = { ...jobs[10], submitTime: jobs[jobs.length - 1].endTime + 1 };
    expect(b.predict(probe)).toEqual(a.predict(probe));
  });
});
