import type { ResourceName } from "@jobsight/schemas";
import { buildFeatureTable, type FeatureTable } from "../features/feature-table.js";
import type { HistoryJob } from "../history-job.js";
import type { ResourceModel } from "../model/resource-model.js";
import { ALL_RESOURCES, resourceSpec } from "../resources.js";
import { type TrainResourceModelOptions, trainResourceModel } from "./train-resource-model.js";
import { collectBetweenPhases } from "./training-heap.js";

/** Options of {@link trainJobModels}. */
export type TrainJobModelsOptions = TrainResourceModelOptions & {
  /**
   * Fewest completed jobs with a known usage before a resource gets a model.
   * @default 500
   */
  minJobs?: number;
  /**
   * Train on jobs that ended before this Unix time (s).
   * @default Infinity (all jobs)
   */
  endedBefore?: number;
};

/**
 * Trains one model per resource the history has usage for (resources without enough completed
 * jobs get none, and predictions for them say `no_model`).
 *
 * @example
 * ```ts
 * const models = trainJobModels(jobs); // { memory: ResourceModel, walltime: ResourceModel }
 * ```
 */
export function trainJobModels(
  jobs: readonly HistoryJob[],
  options: TrainJobModelsOptions = {},
): Partial<Record<ResourceName, ResourceModel>> {
  const out: Partial<Record<ResourceName, ResourceModel>> = {};
  let table: FeatureTable | undefined;
  for (const name of ALL_RESOURCES) {
    const spec = resourceSpec(name);
    let n = 0;
    for (const j of jobs) if (j.outcome === "completed" && spec.target(j) !== undefined) n++;
    if (n < (options.minJobs ?? 500)) continue;
    // One table's memory for all resources: a model keeps nothing of the table it trained on.
    collectBetweenPhases();
    table = buildFeatureTable(jobs, spec, { reuse: table });
    collectBetweenPhases();
    out[name] = trainResourceModel(table, options.endedBefore ?? Number.POSITIVE_INFINITY, options).model;
  }
  return out;
}
