import type { JobSpec } from "@jobsight/schemas";
import { FEATURE_NAMES } from "../features/group-features.js";
import { describeGroup } from "../features/group-keys.js";
import { type HistoryJob, RESOURCE_FIELDS, type ResourceName } from "../history-job.js";
import type { ResourceModel } from "../model/resource-model.js";
import type { TreeEnsemble } from "../model/tree-ensemble.js";
import {
  type ResourcePrediction as ModelPrediction,
  type PredictionEvidence,
  predictResource,
  topFeatures,
} from "../predictor.js";
import { ALL_RESOURCES } from "../resources.js";
import type { LiveFeatureState } from "./live-feature-state.js";
import { specToHistoryJob } from "./record-to-history.js";
import type { Engine, ServedModel } from "./served-model.js";

/** The model's own outcome for one resource, unrounded, in the resource's base unit. */
export type RawOutcome = {
  resource: ResourceName;
  prediction:
    | ModelPrediction
    | { status: "insufficient_evidence"; reasonCode: "no_model" | "not_requested"; reason: string };
  /** The group the evidence comes from, also for insufficient evidence. */
  evidence?: PredictionEvidence;
};

/** One job to predict: its spec and the resources asked for. */
export type SpecToPredict = { spec: JobSpec; resources?: readonly ResourceName[] };

function constant(value: number, like: TreeEnsemble): TreeEnsemble {
  return {
    baseScore: value,
    learningRate: 1,
    trees: [],
    featureNames: like.featureNames,
    quantile: like.quantile,
  };
}

/** Why a resource has no model, in words. */
function noModelReason(model: ServedModel | undefined, resource: ResourceName): string {
  if (!model) return "no model has been trained on this site's jobs yet";
  const skipped = model.manifest.skipped[resource];
  return skipped
    ? `no ${resource} model: the site's history has ${skipped.jobs} completed jobs with measured ${resource} usage, ${skipped.needed} are needed`
    : `model ${model.version} has no ${resource} model`;
}

function asksForGpus(spec: JobSpec): boolean {
  return (spec.requested.gpus ?? 0) > 0 || (spec.requested.gpuMemoryBytes ?? 0) > 0;
}

/**
 * Predicts every asked-for resource of many jobs at once: feature rows from the live state (the
 * history of the same user and application as of now), one ONNX Runtime run per resource for the
 * whole batch, then the predictor's calibration and abstention rules. A resource without a model
 * is `no_model`; GPU resources of a job that asks for no GPU are `not_requested`. Never a guess.
 *
 * @example
 * ```ts
 * const outcomes = await predictSpecs([{ spec }], state, served, Date.now() / 1000);
 * outcomes[0]; // [{ resource: "memory", prediction: { status: "ok", value, … } }, …]
 * ```
 */
export async function predictSpecs(
  items: readonly SpecToPredict[],
  state: LiveFeatureState,
  served: ServedModel | undefined,
  nowSeconds: number,
  engine: Engine = "onnx",
): Promise<RawOutcome[][]> {
  const jobs: HistoryJob[] = items.map((item) => {
    const at = item.spec.submitTime !== undefined ? Date.parse(item.spec.submitTime) / 1000 : Number.NaN;
    return specToHistoryJob(item.spec, Number.isFinite(at) ? at : nowSeconds);
  });
  const out: (RawOutcome | undefined)[][] = items.map(() => ALL_RESOURCES.map(() => undefined));
  const wanted = (i: number, r: ResourceName) =>
    items[i].resources === undefined || items[i].resources!.includes(r);
  const F = FEATURE_NAMES.length;
  for (const [k, resource] of ALL_RESOURCES.entries()) {
    const model = served?.model(resource);
    const batch: number[] = [];
    for (let i = 0; i < items.length; i++) {
      if (!wanted(i, resource)) continue;
      if ((resource === "gpus" || resource === "gpuMemory") && !asksForGpus(items[i].spec)) {
        out[i][k] = {
          resource,
          prediction: {
            status: "insufficient_evidence",
            reasonCode: "not_requested",
            reason: "the job asks for no GPU",
          },
        };
      } else if (!model) {
        out[i][k] = {
          resource,
          prediction: {
            status: "insufficient_evidence",
            reasonCode: "no_model",
            reason: noModelReason(served, resource),
          },
        };
      } else batch.push(i);
    }
    if (batch.length === 0 || !model || !served) continue;
    const rows = new Float32Array(batch.length * F);
    batch.forEach((i, b) => {
      state.features(resource, jobs[i], rows, b * F);
    });
    const { centre, upper } = await served.evaluate(resource, rows, batch.length, engine);
    batch.forEach((i, b) => {
      out[i][k] = predictOne(
        model,
        resource,
        jobs[i],
        rows.subarray(b * F, (b + 1) * F),
        centre[b],
        upper[b],
        state,
        items[i].spec.cluster,
      );
    });
  }
  return out.map((row) => row.filter((o): o is RawOutcome => o !== undefined));
}

function predictOne(
  model: ResourceModel,
  resource: ResourceName,
  job: HistoryJob,
  row: Float32Array,
  m: number,
  u: number,
  state: LiveFeatureState,
  cluster: string,
): RawOutcome {
  const req = job.requested[RESOURCE_FIELDS[resource]];
  const summary = state.summary(resource, job, 3);
  // The ensembles were evaluated already (by ONNX Runtime or the TypeScript trees): the predictor
  // gets them as constants, so its calibration and abstention rules run unchanged.
  const evaluated: ResourceModel = {
    ...model,
    centre: constant(m, model.centre),
    upper: constant(u, model.upper),
  };
  const prediction = predictResource(evaluated, row, {
    logRequest: req !== undefined && req > 0 ? Math.log(req) : Number.NaN,
    userJobs: state.userJobs(row),
    evidence: summary
      ? {
          group: describeGroup(job, summary.level),
          jobs: summary.jobs,
          censoredJobs: summary.censoredJobs,
          since: summary.since,
        }
      : undefined,
  });
  // Users and executables are namespaced by cluster inside; the evidence names them as the site does.
  const strip = (group: string) => group.split(`${cluster}/`).join("");
  const outcome: RawOutcome = { resource, prediction };
  if (prediction.status === "ok") {
    prediction.evidence = {
      ...prediction.evidence,
      group: strip(prediction.evidence.group),
      features: topFeatures(model),
    };
  } else if (summary) {
    outcome.evidence = {
      group: strip(describeGroup(job, summary.level)),
      jobs: summary.jobs,
      censoredJobs: summary.censoredJobs,
      since: Number.isFinite(summary.since) ? new Date(summary.since * 1000).toISOString() : undefined,
      features: [],
    };
  }
  return outcome;
}
