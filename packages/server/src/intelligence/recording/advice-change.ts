import type { AdviceCause, PolicyAdjustment } from "@jobsight/schemas";
import type {
  AdvisingModelRow,
  RecordedEvidence,
  RecordedResource,
} from "../../data-plane/queries/recorded-advice.js";
import { formatBytes, formatDuration, trim } from "../diagnosis/explain/format.js";
import { lineageOf } from "../registry/model-version.js";

/** One side of a change: the advice for a resource, the version that gave it, what it rested on. */
export type AdviceSide = {
  version: string;
  resource: RecordedResource;
  evidence?: RecordedEvidence;
};

/** What changed from one piece of advice to the next, machine-readable and in plain words. */
export type AdviceChange = { causes: AdviceCause[]; why: string };

// The platform's rules, in words. Rounding says nothing worth telling, and a recent memory kill
// is the job's own history rather than the policy (see group history below).
const POLICY_RULES: Partial<Record<PolicyAdjustment["rule"], string>> = {
  floor: "the policy's floor",
  cap: "the policy's cap",
  node_capacity: "the partition's node size",
  max_decrease: "the policy's largest decrease per step",
  max_increase: "the policy's largest increase per step",
  never_lower: "the policy's never-lower rule",
  min_confidence: "the policy's minimum confidence",
  user_opt_out: "the user's opt-out",
};

const WHY_MAX = 2048;

/**
 * Why the advice for one resource changed from `before` to `after`: another model version (both
 * named, with what each was trained on where the registry still has it), a policy rule that now
 * applies, no longer applies or gives another value, a recommendation that became insufficient
 * evidence or the other way round, or, from the same version, a change of the job's group history
 * (jobs of the same user and application ended in between). Without `before`, the first advice.
 *
 * @example
 * ```ts
 * explainChange(
 *   { version: "m-2", resource: { resource: "memory", status: "ok", unit: "bytes", value: 48 * 2 ** 30 } },
 *   { version: "m-3", resource: { resource: "memory", status: "ok", unit: "bytes", value: 32 * 2 ** 30 } },
 *   new Map(),
 * );
 * // { causes: ["model_version"], why: "Lowered from 48 GiB to 32 GiB: the model version changed from m-2 … to m-3 …." }
 * ```
 */
export function explainChange(
  before: AdviceSide | undefined,
  after: AdviceSide,
  models: ReadonlyMap<string, AdvisingModelRow>,
): AdviceChange {
  const model = (version: string) => describeModel(version, models.get(version));
  if (!before) {
    return {
      causes: ["first"],
      why: clamp(`${firstWords(after.resource)}, from model ${model(after.version)}.`),
    };
  }
  const causes: AdviceCause[] = [];
  const reasons: string[] = [];
  if (before.version !== after.version) {
    causes.push("model_version");
    reasons.push(versionChange(before.version, after.version, model));
  }
  const policy = policyChanges(before.resource, after.resource);
  if (policy.length > 0) {
    causes.push("policy");
    reasons.push(`a policy adjustment: ${policy.join(", ")}`);
  }
  const statusChanged = before.resource.status !== after.resource.status;
  if (statusChanged) causes.push("status");
  if (before.version === after.version) {
    // Only the policy explains a change that left the model's own value, status and kill floor alone.
    const modelMoved =
      statusChanged ||
      modelValue(before.resource) !== modelValue(after.resource) ||
      killFloor(before.resource) !== killFloor(after.resource);
    if (modelMoved || policy.length === 0) {
      causes.push("group_history");
      reasons.push(`the same model ${after.version} answered differently: ${groupHistory(before, after)}`);
    }
  }
  return { causes, why: clamp(`${changeWords(before.resource, after.resource)}: ${reasons.join("; ")}.`) };
}

/** Another version answered: new trees, or the same trees with their calibration refitted. */
function versionChange(before: string, after: string, model: (version: string) => string): string {
  const a = lineageOf(before);
  const b = lineageOf(after);
  if (a.trained === b.trained && b.revision > a.revision) {
    return `the calibration of model ${b.trained} was refitted on the jobs that ended since (${before} to ${after}; the trees are the same)`;
  }
  return `the model version changed from ${model(before)} to ${model(after)}`;
}

/** A model version with when and on what it was trained, as far as the registry knows. */
export function describeModel(version: string, row: AdvisingModelRow | undefined): string {
  if (!row) return `${version} (no longer in the registry)`;
  const range = row.dataStart && row.dataEnd ? ` from ${day(row.dataStart)} to ${day(row.dataEnd)}` : "";
  return `${version} (trained ${day(row.trainedAt)} on ${row.trainingJobs.toLocaleString("en-US")} jobs${range})`;
}

/** An amount in the unit it is given in, as a person reads it. */
export function formatAdviceValue(value: number, unit: RecordedResource["unit"]): string {
  switch (unit) {
    case "bytes":
      return formatBytes(value);
    case "seconds":
      return formatDuration(value);
    case "devices":
      return `${trim(value)} ${value === 1 ? "GPU" : "GPUs"}`;
    case "cores":
      return `${trim(value)} ${value === 1 ? "core" : "cores"}`;
    default:
      return trim(value);
  }
}

function firstWords(r: RecordedResource): string {
  if (r.status !== "ok" || r.value === undefined) return `First answer: no recommendation (${reasonOf(r)})`;
  return `First advice: ${formatAdviceValue(r.value, r.unit)}`;
}

function changeWords(a: RecordedResource, b: RecordedResource): string {
  const amount = (v: number) => formatAdviceValue(v, b.unit ?? a.unit);
  if (b.status !== "ok" || b.value === undefined) {
    return a.status === "ok"
      ? `No recommendation any more (${reasonOf(b)})`
      : `Still no recommendation, now: ${reasonOf(b)}`;
  }
  if (a.status !== "ok" || a.value === undefined) {
    return `A recommendation of ${amount(b.value)} where there was none (${reasonOf(a)})`;
  }
  if (b.value > a.value) return `Raised from ${amount(a.value)} to ${amount(b.value)}`;
  if (b.value < a.value) return `Lowered from ${amount(a.value)} to ${amount(b.value)}`;
  return `The same ${amount(b.value)}, with another range or confidence`;
}

function reasonOf(r: RecordedResource): string {
  // A reason is a sentence; inside parentheses it reads better without its full stop.
  return (r.reason ?? r.reasonCode?.replaceAll("_", " ") ?? "insufficient evidence").replace(/\.$/, "");
}

function policyOf(r: RecordedResource): PolicyAdjustment[] {
  return (r.adjustments ?? []).filter((a) => POLICY_RULES[a.rule] !== undefined);
}

function policyChanges(a: RecordedResource, b: RecordedResource): string[] {
  const amount = (v: number) => formatAdviceValue(v, b.unit ?? a.unit);
  const earlier = new Map(policyOf(a).map((x) => [x.rule, x]));
  const later = new Map(policyOf(b).map((x) => [x.rule, x]));
  const out: string[] = [];
  for (const [rule, x] of later) {
    const was = earlier.get(rule);
    if (!was) out.push(`${POLICY_RULES[rule]} now applies (${amount(x.before)} → ${amount(x.after)})`);
    // The same rule from the same value to another: the rule itself changed, not the model.
    else if (was.before === x.before && was.after !== x.after)
      out.push(`${POLICY_RULES[rule]} now gives ${amount(x.after)} instead of ${amount(was.after)}`);
  }
  for (const rule of earlier.keys())
    if (!later.has(rule)) out.push(`${POLICY_RULES[rule]} no longer applies`);
  return out;
}

/** The value before any rule moved it: the model's own (rounding apart). */
function modelValue(r: RecordedResource): number | undefined {
  return r.adjustments?.[0]?.before ?? r.value;
}

function killFloor(r: RecordedResource): number | undefined {
  return r.adjustments?.find((a) => a.rule === "recent_oom")?.after;
}

function groupHistory(before: AdviceSide, after: AdviceSide): string {
  const details: string[] = [];
  const a = before.evidence;
  const b = after.evidence;
  if (a?.jobs !== undefined && b?.jobs !== undefined && (a.jobs !== b.jobs || a.group !== b.group)) {
    details.push(
      a.group === b.group && b.group
        ? `it rests on ${b.jobs} past jobs of ${b.group} instead of ${a.jobs}`
        : `it rests on ${b.jobs} past jobs of ${b.group ?? "its group"} instead of ${a.jobs} of ${a.group ?? "another group"}`,
    );
  }
  const killedBefore = killFloor(before.resource) !== undefined;
  const killedAfter = killFloor(after.resource) !== undefined;
  if (killedAfter && !killedBefore)
    details.push(
      "a recent run of the same application was killed for memory, so the value is above what it died with",
    );
  if (killedBefore && !killedAfter) details.push("no recent memory kill raises the value any more");
  const head = "the job's group history changed (jobs of the same user and application ended in between)";
  return details.length > 0 ? `${head}: ${details.join(", and ")}` : head;
}

function day(timestamp: string): string {
  return timestamp.slice(0, 10);
}

function clamp(text: string): string {
  return text.length <= WHY_MAX ? text : `${text.slice(0, WHY_MAX - 1)}…`;
}
