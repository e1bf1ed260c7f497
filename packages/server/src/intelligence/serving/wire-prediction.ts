import type {
  Evidence,
  JobSpec,
  Policy,
  PredictionMode,
  ResourceName,
  ResourcePrediction,
  ResourceRecommendation,
} from "@jobsight/schemas";
import { cpuStepOf } from "@jobsight/schemas";
import { type AppliedResource, applyPolicy } from "../policy/apply-policy.js";
import { boundsOf, requestOf, type UpperLimit } from "../policy/policy-bounds.js";
import {
  type Granularity,
  type GranularityOptions,
  granularityOf,
  roundDownTo,
  roundUpTo,
} from "../policy/scheduler-rounding.js";
import type { PredictionEvidence, RawOutcome } from "./predictor.js";

/** The steps each scheduler takes resources in. */
export type RoundingOptions = {
  /** @default { memoryGranularityBytes: 1048576, coresGranularity: 1, walltimeGranularitySeconds: 60 } */
  slurm?: GranularityOptions;
  /** @default { memoryGranularityBytes: 1048576, coresGranularity: 0.001, walltimeGranularitySeconds: 60 } */
  kubernetes?: GranularityOptions;
};

const UNITS = {
  memory: "bytes",
  cores: "cores",
  gpus: "devices",
  gpuMemory: "bytes",
  walltime: "seconds",
} as const satisfies Record<ResourceName, string>;

/**
 * The granularity options of a job's scheduler: SLURM takes whole cores; Kubernetes cores go in
 * the step the job's own request was written in (see {@link kubernetesRounding}).
 */
export function granularityOptionsFor(spec: JobSpec, rounding: RoundingOptions = {}): GranularityOptions {
  return spec.scheduler === "kubernetes"
    ? kubernetesRounding(spec, rounding, new Map()).options
    : schedulerOptions(spec.scheduler, rounding);
}

function schedulerOptions(scheduler: JobSpec["scheduler"], rounding: RoundingOptions): GranularityOptions {
  return scheduler === "kubernetes"
    ? { coresGranularity: 0.001, ...rounding.kubernetes }
    : { ...rounding.slurm };
}

/**
 * The rounding of a Kubernetes job: cores in the step its own request was written in (whole
 * cores for `cpu: "32"`), never finer than the site's; made once per step, kept in `cache`.
 *
 * @example
 * ```ts
 * const cache = new Map<number, SchedulerRounding>();
 * kubernetesRounding(spec, rounding, cache).granularity.cores; // 1 for a request of 32 cores
 * ```
 */
export function kubernetesRounding(
  spec: JobSpec,
  rounding: RoundingOptions,
  cache: Map<number, SchedulerRounding>,
): SchedulerRounding {
  const site = schedulerOptions("kubernetes", rounding).coresGranularity ?? 0.001;
  const step = Math.max(site, cpuStepOf(spec.requested.cores));
  let r = cache.get(step);
  if (!r) {
    r = schedulerRounding("kubernetes", {
      ...rounding,
      kubernetes: { ...rounding.kubernetes, coresGranularity: step },
    });
    cache.set(step, r);
  }
  return r;
}

/** How one scheduler takes resources: its options and the granularity they give. */
export type SchedulerRounding = { options: GranularityOptions; granularity: Granularity };

/**
 * {@link granularityOptionsFor} and {@link granularityFor} of every job of one scheduler, made
 * once for a batch rather than once per job.
 */
export function schedulerRounding(
  scheduler: JobSpec["scheduler"],
  rounding: RoundingOptions = {},
): SchedulerRounding {
  const options = schedulerOptions(scheduler, rounding);
  return { options, granularity: granularityOf(options) };
}

function wireEvidence(e: PredictionEvidence): Evidence {
  const out: Evidence = { group: e.group.slice(0, 512), jobs: e.jobs, censoredJobs: e.censoredJobs };
  if (e.since) out.since = e.since;
  if (e.features.length > 0) out.features = withinLimits(e.features);
  return out;
}

// The model's top features (one array per model, shared by its predictions) are always within
// the wire's limits: they are then passed on as they are instead of copied for every prediction.
function withinLimits(features: readonly string[]): string[] {
  let fits = features.length <= 16;
  for (let i = 0; fits && i < features.length; i++) fits = features[i].length <= 128;
  return fits ? (features as string[]) : features.slice(0, 16).map((f) => f.slice(0, 128));
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/**
 * The model's outcome for one resource as the wire contract says it: in the resource's unit,
 * rounded the way the scheduler takes it (value and the top of the range up to the next step,
 * at least one step; the bottom of the range down), with what the job requested beside it.
 *
 * @example
 * ```ts
 * toWireResource(raw, spec, granularityOf({})); // { resource: "memory", status: "ok", unit: "bytes", value: 3 GiB, … }
 * ```
 */
export function toWireResource(raw: RawOutcome, spec: JobSpec, granularity: Granularity): ResourcePrediction {
  const { resource, prediction: p } = raw;
  const requested = requestOf(spec, resource);
  if (p.status !== "ok") {
    const out: ResourcePrediction = {
      resource,
      status: "insufficient_evidence",
      reasonCode: p.reasonCode,
      reason: p.reason.slice(0, 1024),
    };
    if (requested !== undefined) out.requested = requested;
    if (raw.evidence) out.evidence = wireEvidence(raw.evidence);
    return out;
  }
  const g = granularity[resource];
  const value = Math.max(g, roundUpTo(p.value, g));
  const out: ResourcePrediction = {
    resource,
    status: "ok",
    unit: UNITS[resource],
    value,
    low: Math.min(value, Math.max(0, roundDownTo(p.low, g))),
    // Rounding the value up must not take it out of its range.
    high: Math.max(value, roundUpTo(p.high, g)),
    confidence: clamp01(p.confidence),
    evidence: wireEvidence(p.evidence),
  };
  if (p.basis !== undefined) out.basis = p.basis;
  // NaN: a range with no nominal level (a lower bound from a kill, not a calibrated interval).
  if (!Number.isNaN(p.nominalLevel)) out.nominalLevel = clamp01(p.nominalLevel);
  if (requested !== undefined) out.requested = requested;
  if (raw.adjustments) {
    out.adjustments = raw.adjustments.map((a) => ({
      rule: a.rule,
      before: Math.max(g, roundUpTo(a.before, g)),
      after: Math.max(g, roundUpTo(a.after, g)),
    }));
  }
  return out;
}

/**
 * Applies the platform team's policy to wire recommendations: each recommendation takes the
 * value the policy gives it and lists the rules that changed it (floors, caps, node capacity,
 * maximum change, never lower, minimum confidence, opt-outs, rounding); the range is kept under
 * the partition's caps and node capacity too. Insufficient evidence passes through unchanged.
 *
 * @example
 * ```ts
 * withPolicy(resources, spec, { name: "p", caps: { memory: 64 * 2 ** 30 } }, "live", {});
 * ```
 */
export function withPolicy(
  resources: readonly ResourcePrediction[],
  spec: JobSpec,
  policy: Policy,
  mode: PredictionMode,
  granularity: GranularityOptions,
): ResourcePrediction[] {
  // Insufficient evidence passes through: the policy decides only for recommendations.
  const recommended: ResourcePrediction[] = [];
  for (const r of resources) if (r.status === "ok") recommended.push(r);
  if (recommended.length === 0) return resources.slice();
  const decision = applyPolicy(recommended, spec, policy, { ...granularity, mode });
  const out: ResourcePrediction[] = new Array(resources.length);
  for (let i = 0, d = 0; i < resources.length; i++) {
    const r = resources[i];
    out[i] = r.status === "ok" ? withDecision(r, decision.resources[d++], spec, policy) : r;
  }
  return out;
}

/**
 * One recommendation after the policy's decision for it (a loop body: no closure per
 * prediction); the recommendation itself when the policy changed nothing.
 */
function withDecision(
  r: ResourceRecommendation,
  d: AppliedResource,
  spec: JobSpec,
  policy: Policy,
): ResourcePrediction {
  const moved = d.adjustments.length > 0 && d.value !== undefined;
  const value = moved ? (d.value as number) : r.value;
  let limit = Number.POSITIVE_INFINITY;
  for (const l of limitsOf(policy, spec, r.resource)) {
    limit = Math.min(limit, r.requested !== undefined ? Math.max(l.value, r.requested) : l.value);
  }
  // The range keeps the value inside it, wherever the policy moved the value.
  const high = r.high !== undefined ? Math.max(Math.min(r.high, Math.max(limit, value)), value) : undefined;
  const low = r.low !== undefined ? Math.min(r.low, value) : undefined;
  if (!moved && high === r.high && low === r.low) return r;
  const out = { ...r };
  if (moved) {
    out.value = value;
    out.adjustments = r.adjustments ? [...r.adjustments, ...d.adjustments] : d.adjustments;
  }
  if (high !== undefined) out.high = high;
  if (low !== undefined) out.low = low;
  return out;
}

/** A policy's limits by resource when they do not depend on the job (no partition rules). */
const jobIndependentLimits = new WeakMap<Policy, Map<ResourceName, readonly UpperLimit[]>>();

function limitsOf(policy: Policy, spec: JobSpec, resource: ResourceName): readonly UpperLimit[] {
  if (policy.partitions !== undefined && policy.partitions.length > 0)
    return boundsOf(policy, spec, resource).limits;
  let byResource = jobIndependentLimits.get(policy);
  if (!byResource) {
    byResource = new Map();
    jobIndependentLimits.set(policy, byResource);
  }
  let limits = byResource.get(resource);
  if (!limits) {
    limits = boundsOf(policy, spec, resource).limits;
    byResource.set(resource, limits);
  }
  return limits;
}

/** The granularity of a job (for tests and callers that round themselves). */
export function granularityFor(spec: JobSpec, rounding?: RoundingOptions): Granularity {
  return granularityOf(granularityOptionsFor(spec, rounding));
}
