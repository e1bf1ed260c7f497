import type { ResourceName } from "@jobsight/schemas";
import { FeatureBuilder } from "../features/feature-builder.js";
import { describeGroup } from "../features/group-keys.js";
import type { HistoryJob } from "../history-job.js";
import type { ResourceModel } from "../model/resource-model.js";
import { resourceSpec } from "../resources.js";
import { predictResource, type ResourcePrediction } from "./predictor.js";

/**
 * Serves predictions for jobs about to run: it keeps the per-group history of ended jobs (fed with
 * {@link observeEnded}) and applies the trained models to a new job's features. The same feature
 * code as training and the backtest, so what was measured is what is served.
 *
 * @example
 * ```ts
 * const predictor = new JobPredictor(trainJobModels(history));
 * for (const job of history) predictor.observeEnded(job);
 * predictor.predict(newJob).memory; // { status: "ok", value, low, high, confidence, evidence }
 * ```
 */
export class JobPredictor {
  readonly #builders = new Map<ResourceName, FeatureBuilder>();

  constructor(readonly models: Partial<Record<ResourceName, ResourceModel>>) {
    for (const name of Object.keys(models) as ResourceName[]) {
      this.#builders.set(name, new FeatureBuilder(resourceSpec(name)));
    }
  }

  /** Adds an ended job to the history (call in end-time order). */
  observeEnded(job: HistoryJob): void {
    for (const b of this.#builders.values()) b.observeEnded(job);
  }

  /** Predicts every modelled resource of a job that has not run yet. */
  predict(job: HistoryJob): Partial<Record<ResourceName, ResourcePrediction>> {
    const out: Partial<Record<ResourceName, ResourcePrediction>> = {};
    for (const [name, builder] of this.#builders) {
      const model = this.models[name] as ResourceModel;
      const row = builder.features(job);
      const req = builder.spec.request(job);
      const userJobs = Math.round(Math.expm1(row[builder.names.indexOf("user_count")]));
      const summary = builder.summary(job, 3);
      out[name] = predictResource(model, row, {
        request: req,
        userJobs,
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
