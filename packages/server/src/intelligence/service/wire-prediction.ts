import type { Evidence, JobSpec, Policy, PredictionMode, ResourcePrediction } from "@jobsight/schemas";
import { type AppliedResource, applyPolicy } from "../../policy/apply-policy.js";
import { boundsOf, requestOf } from "../../policy/policy-bounds.js";
import {
  type Granularity,
  type GranularityOptions,
  granularityOf,
  roundDownTo,
  roundUpTo,
} from "../../policy/scheduler-rounding.js";
import type { ResourceName } from "../history-job.js";
import type { PredictionEvidence } from "../predictor.js";
import type { RawOutcome } from "./predict-specs.js";

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

/** The granularity options of a job's scheduler (Kubernetes takes millicores). */
export function granularityOptionsFor(spec: JobSpec, rounding: RoundingOptions = {}): GranularityOptions {
  return spec.scheduler === "kubernetes"
    ? { coresGranularity: 0.001, ...rounding.kubernetes }
    : { ...rounding.slurm };
}

function wireEvidence(e: PredictionEvidence): Evidence {
  const out: Evidence = { group: e.group.slice(0, 512), jobs: e.jobs, censoredJobs: e.censoredJobs };
  if (e.since) out.since = e.since;
  if (e.features.length > 0) out.features = e.features.slice(0, 16).map((f) => f.slice(0, 128));
  return out;
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
    high: Math.max(g, roundUpTo(p.high, g)),
    confidence: clamp01(p.confidence),
    evidence: wireEvidence(p.evidence),
  };
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
  const decision = applyPolicy(resources, spec, policy, { ...granularity, mode });
  const out: ResourcePrediction[] = new Array(resources.length);
  for (let i = 0; i < resources.length; i++)
    out[i] = withDecision(resources[i], decision.resources[i], spec, policy);
  return out;
}

/** One resource after the policy's decision for it (a loop body: no closure per prediction). */
function withDecision(
  r: ResourcePrediction,
  d: AppliedResource,
  spec: JobSpec,
  policy: Policy,
): ResourcePrediction {
  if (r.status !== "ok") return r;
  const out = { ...r };
  if (d.adjustments.length > 0 && d.value !== undefined) {
    out.value = d.value;
    out.adjustments = r.adjustments ? [...r.adjustments, ...d.adjustments] : d.adjustments;
  }
  let limit = Number.POSITIVE_INFINITY;
  for (const l of boundsOf(policy, spec, r.resource).limits) {
    limit = Math.min(limit, r.requested !== undefined ? Math.max(l.value, r.requested) : l.value);
  }
  if (out.high !== undefined) out.high = Math.min(out.high, Math.max(limit, out.value));
  if (out.low !== undefined) out.low = Math.min(out.low, out.high ?? out.low);
  return out;
}

/** The granularity of a job (for tests and callers that round themselves). */
export function granularityFor(spec: JobSpec, rounding?: RoundingOptions): Granularity {
  return granularityOf(granularityOptionsFor(spec, rounding));
}
