import type { JobSpec, ResourceName } from "@jobsight/schemas";
import { FEATURE_NAMES } from "../features/group-features.js";
import { describeGroup, type GroupKeys, groupKeys } from "../features/group-keys.js";
import { type HistoryJob, RESOURCE_FIELDS } from "../history-job.js";
import type { ResourceModel } from "../model/resource-model.js";
import type { TreeEnsemble } from "../model/tree-ensemble.js";
import { specToHistoryJob } from "../recording/record-to-history.js";
import type { Engine, ServedModel } from "../registry/served-model.js";
import { ALL_RESOURCES } from "../resources.js";
import { isoSeconds } from "./iso-seconds.js";
import type { LiveFeatureState } from "./live-feature-state.js";
import { predictResource, type RawOutcome, topFeatures } from "./predictor.js";
import { raiseAboveKill } from "./recent-kill-floor.js";

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

/** One resource's rows of a batch, written before any model runs. */
type ResourcePlan = {
  k: number;
  resource: ResourceName;
  model: ResourceModel;
  /** Indexes (into the batch) of the jobs whose row is in `rows`, in row order. */
  batch: number[];
  rows: Float32Array;
};

/**
 * Predicts every asked-for resource of many jobs at once: feature rows from the live state (the
 * history of the same user and application as of now), one ONNX Runtime run for every resource
 * of the whole batch, then the predictor's calibration and abstention rules. A resource without a model
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
  const jobs: HistoryJob[] = new Array(items.length);
  const keys: GroupKeys[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const spec = items[i].spec;
    const at = spec.submitTime !== undefined ? Date.parse(spec.submitTime) / 1000 : Number.NaN;
    jobs[i] = specToHistoryJob(spec, Number.isFinite(at) ? at : nowSeconds);
    keys[i] = groupKeys(jobs[i]);
  }
  // Outcomes by resource (in ALL_RESOURCES order), then compacted per job.
  const R = ALL_RESOURCES.length;
  const slots: (RawOutcome | undefined)[] = new Array(items.length * R);
  const F = FEATURE_NAMES.length;
  const plans: ResourcePlan[] = [];
  for (let k = 0; k < R; k++) {
    const resource = ALL_RESOURCES[k];
    const model = served?.model(resource);
    const gpu = resource === "gpus" || resource === "gpuMemory";
    const batch: number[] = [];
    for (let i = 0; i < items.length; i++) {
      const wanted = items[i].resources;
      if (wanted !== undefined && !wanted.includes(resource)) continue;
      if (gpu && !asksForGpus(items[i].spec)) {
        slots[i * R + k] = {
          resource,
          prediction: {
            status: "insufficient_evidence",
            reasonCode: "not_requested",
            reason: "the job asks for no GPU",
          },
        };
      } else if (!model) {
        slots[i * R + k] = {
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
    for (let b = 0; b < batch.length; b++) {
      const i = batch[b];
      state.features(resource, jobs[i], rows, b * F, keys[i]);
    }
    plans.push({ k, resource, model, batch, rows });
  }
  // Every resource's rows in one run: a run's fixed cost is paid once per request, not per resource.
  const outputs = served
    ? await served.evaluateMany(
        plans.map((p) => ({ resource: p.resource, rows: p.rows, count: p.batch.length })),
        engine,
      )
    : [];
  for (let p = 0; p < plans.length; p++) {
    const { k, resource, model, batch, rows } = plans[p];
    const { centre, upper } = outputs[p];
    for (let b = 0; b < batch.length; b++) {
      const i = batch[b];
      slots[i * R + k] = predictOne(
        model,
        resource,
        jobs[i],
        keys[i],
        rows,
        b * F,
        centre[b],
        upper[b],
        state,
        items[i].spec.cluster,
      );
    }
  }
  const memory = ALL_RESOURCES.indexOf("memory");
  for (let i = 0; i < items.length; i++) {
    const o = slots[i * R + memory];
    const kill = o && state.recentMemoryKill(jobs[i], keys[i]);
    if (!o || !kill) continue;
    const req = jobs[i].requested.memoryBytes;
    const group = describeGroup(jobs[i], "app").replaceAll(`${items[i].spec.cluster}/`, "");
    slots[i * R + memory] = raiseAboveKill(
      o,
      kill,
      state.kills,
      req !== undefined && req > 0 ? req : undefined,
      group,
    );
  }
  const out: RawOutcome[][] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const row: RawOutcome[] = [];
    for (let k = 0; k < R; k++) {
      const o = slots[i * R + k];
      if (o !== undefined) row.push(o);
    }
    out[i] = row;
  }
  return out;
}

/**
 * The model of a resource with its ensembles replaced by constants, reused for every row: the
 * ensembles were evaluated already (by ONNX Runtime or the TypeScript trees), so the predictor
 * gets the outputs as constants and its calibration and abstention rules run unchanged. One shell
 * per model, filled just before each synchronous call, spares a copy of the model per row.
 */
const shells = new WeakMap<ResourceModel, ResourceModel>();

function evaluatedShell(model: ResourceModel, m: number, u: number): ResourceModel {
  let shell = shells.get(model);
  if (!shell) {
    shell = { ...model, centre: constant(0, model.centre), upper: constant(0, model.upper) };
    shells.set(model, shell);
  }
  shell.centre.baseScore = m;
  shell.upper.baseScore = u;
  return shell;
}

function predictOne(
  model: ResourceModel,
  resource: ResourceName,
  job: HistoryJob,
  keys: GroupKeys,
  rows: Float32Array,
  offset: number,
  m: number,
  u: number,
  state: LiveFeatureState,
  cluster: string,
): RawOutcome {
  const req = job.requested[RESOURCE_FIELDS[resource]];
  const summary = state.summary(resource, job, 3, keys);
  const group = summary ? describeGroup(job, summary.level) : undefined;
  const prediction = predictResource(
    evaluatedShell(model, m, u),
    rows.subarray(offset, offset + FEATURE_NAMES.length),
    {
      request: req !== undefined && req > 0 ? req : undefined,
      userJobs: state.userJobs(rows, offset),
      evidence: summary
        ? {
            group: group as string,
            jobs: summary.jobs,
            censoredJobs: summary.censoredJobs,
            since: summary.since,
          }
        : undefined,
    },
  );
  // Users and executables are namespaced by cluster inside; the evidence names them as the site does.
  const prefix = `${cluster}/`;
  const outcome: RawOutcome = { resource, prediction };
  if (prediction.status === "ok") {
    // The predictor's own fresh object, renamed in place.
    const evidence = prediction.evidence;
    evidence.group = evidence.group.replaceAll(prefix, "");
    evidence.features = topFeatures(model);
  } else if (summary) {
    outcome.evidence = {
      group: (group as string).replaceAll(prefix, ""),
      jobs: summary.jobs,
      censoredJobs: summary.censoredJobs,
      since: Number.isFinite(summary.since) ? isoSeconds(summary.since) : undefined,
      features: [],
    };
  }
  return outcome;
}
