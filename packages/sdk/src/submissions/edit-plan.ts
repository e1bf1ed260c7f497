import type { Policy, Prediction, ResourceName, ResourceRequest, ResourceValues } from "@jobsight/schemas";
import { cpuStepOf } from "@jobsight/schemas";

/** The value to write per resource, in the resource's unit (bytes, cores, devices, seconds), for the whole job. */
export type ResourceTargets = Partial<Record<ResourceName, number>>;

/** A resource the edit leaves as it is, and why. */
export type SkippedResource = { resource: ResourceName; reason: string };

/** What to change in a submission, and what not to and why. */
export type EditPlan = { targets: ResourceTargets; skipped: SkippedResource[] };

/** What the submission says today, as far as the policy cares. */
export type CurrentRequest = {
  requested: ResourceRequest;
  partition?: string;
  /** Kubernetes namespace, for the policy's namespace rules. */
  namespace?: string;
  /** Pod labels, for the policy's opt-out label. */
  labels?: Record<string, string>;
  /**
   * SLURM takes whole cores; Kubernetes takes cores in the step the request was written in (whole
   * cores for `"32"`, millicores for `"250m"`, see `cpuStepOf`). @default "slurm"
   */
  scheduler?: "slurm" | "kubernetes";
};

/** Where each resource lives in a `ResourceRequest`. */
export const requestField = {
  memory: "memoryBytes",
  cores: "cores",
  gpus: "gpus",
  gpuMemory: "gpuMemoryBytes",
  walltime: "walltimeSeconds",
} as const satisfies Record<ResourceName, keyof ResourceRequest>;

const integral: ResourceName[] = ["cores", "gpus"];

function min(...values: (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length === 0 ? undefined : Math.min(...defined);
}

function max(...values: (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length === 0 ? undefined : Math.max(...defined);
}

function skipAll(prediction: Prediction, reason: string): EditPlan {
  return { targets: {}, skipped: prediction.resources.map((r) => ({ resource: r.resource, reason })) };
}

/**
 * Decide what to write per resource from a prediction under the platform team's policy:
 * recommendations only (never a guess), nothing for opted-out users, namespaces or resources the
 * policy leaves alone, floors and caps (global and per partition, node capacity × nodes), the
 * largest change per step, and never lowering what `neverLower` names.
 *
 * @example
 * ```ts
 * const plan = planEdit(prediction, { name: "p", neverLower: ["gpus"] }, { requested: spec.requested });
 * plan.targets; // { memory: 25769803776, walltime: 7200 }
 * ```
 */
export function planEdit(
  prediction: Prediction,
  policy: Policy | undefined,
  current: CurrentRequest,
): EditPlan {
  const p: Policy = policy ?? { name: "none" };
  if (p.optOutUsers?.includes(prediction.user))
    return skipAll(prediction, `user ${prediction.user} opted out`);
  if (current.namespace !== undefined) {
    const { include, exclude } = p.namespaces ?? {};
    if (exclude?.includes(current.namespace) || (include && !include.includes(current.namespace))) {
      return skipAll(prediction, `namespace ${current.namespace} is not managed by the policy`);
    }
  }
  if (p.optOutLabel && current.labels?.[p.optOutLabel] === "false") {
    return skipAll(prediction, `the pod is labelled ${p.optOutLabel}=false`);
  }
  const partitionRules = p.partitions?.find((r) => r.partition === current.partition);
  const nodes = current.requested.nodes ?? 1;
  const targets: ResourceTargets = {};
  const skipped: SkippedResource[] = [];

  for (const outcome of prediction.resources) {
    const resource = outcome.resource;
    if (outcome.status !== "ok") {
      skipped.push({ resource, reason: `insufficient evidence: ${outcome.reason}` });
      continue;
    }
    if (p.leaveAlone?.includes(resource)) {
      skipped.push({ resource, reason: "the policy leaves it alone" });
      continue;
    }
    if (p.minConfidence !== undefined && outcome.confidence < p.minConfidence) {
      skipped.push({
        resource,
        reason: `confidence ${outcome.confidence} is below the policy's ${p.minConfidence}`,
      });
      continue;
    }
    const key = resource as keyof ResourceValues;
    const requested = current.requested[requestField[resource]] as number | undefined;
    const capacity = partitionRules?.nodeCapacity?.[key];
    let value = outcome.value;
    value = max(value, p.floors?.[key], partitionRules?.floors?.[key])!;
    value = min(
      value,
      p.caps?.[key],
      partitionRules?.caps?.[key],
      capacity === undefined ? undefined : capacity * nodes,
    )!;
    if (requested !== undefined) {
      const down = p.maxDecrease?.[key];
      const up = p.maxIncrease?.[key];
      if (down !== undefined) value = Math.max(value, requested * (1 - down));
      if (up !== undefined) value = Math.min(value, requested * (1 + up));
    }
    if (resource === "cores" && current.scheduler === "kubernetes") {
      // In the step the user's own cpu quantity was written in: "32" stays whole cores.
      const step = cpuStepOf(requested);
      value = Number((Math.ceil(value / step - 1e-6) * step).toPrecision(12));
    } else if (integral.includes(resource)) value = Math.ceil(value);
    if (requested !== undefined && value < requested && p.neverLower?.includes(resource)) {
      skipped.push({ resource, reason: "the policy never lowers it" });
      continue;
    }
    if (resource !== "gpus" && value <= 0) {
      skipped.push({ resource, reason: "a zero request cannot be written" });
      continue;
    }
    targets[resource] = value;
  }
  return { targets, skipped };
}
