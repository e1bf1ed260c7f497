import type { JobSpec, Policy, PolicyAdjustment, ResourceName } from "@jobsight/schemas";

/** Every resource, in the order decisions are reported. */
export const RESOURCE_NAMES: readonly ResourceName[] = ["memory", "cores", "gpus", "gpuMemory", "walltime"];

/** A hard upper limit and the rule that sets it. */
export type UpperLimit = { rule: Extract<PolicyAdjustment["rule"], "cap" | "node_capacity">; value: number };

/** The floors and caps of the policy that apply to one resource of one job. */
export type ResourceBounds = {
  /** The highest floor of the policy and the job's partitions, if any. */
  floor?: number;
  /** Caps and node capacities, in the order they are applied. */
  limits: UpperLimit[];
};

/** The job's request of one resource in the resource's unit, or undefined when it asked for none. */
export function requestOf(spec: JobSpec, resource: ResourceName): number | undefined {
  const r = spec.requested;
  const value =
    resource === "memory"
      ? r.memoryBytes
      : resource === "cores"
        ? r.cores
        : resource === "gpus"
          ? r.gpus
          : resource === "gpuMemory"
            ? r.gpuMemoryBytes
            : r.walltimeSeconds;
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
}

// A SLURM job may name several partitions ("batch,long"); it may run in any of them, so it gets
// the strictest rules of all: the highest floor and the lowest cap.
function partitionsOf(spec: JobSpec): string[] {
  return (spec.partition ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/**
 * The floor and the caps of one resource for one job: the policy's own, then those of every
 * partition the job names (per-partition caps, then node capacity).
 *
 * @example
 * ```ts
 * boundsOf({ name: "p", caps: { memory: 2 ** 40 } }, spec, "memory"); // { limits: [{ rule: "cap", value: 2 ** 40 }] }
 * ```
 */
export function boundsOf(policy: Policy, spec: JobSpec, resource: ResourceName): ResourceBounds {
  const floors: number[] = [];
  const limits: UpperLimit[] = [];
  const globalFloor = policy.floors?.[resource];
  const globalCap = policy.caps?.[resource];
  if (globalFloor !== undefined) floors.push(globalFloor);
  if (globalCap !== undefined) limits.push({ rule: "cap", value: globalCap });
  // Most policies have no partition rules: the job's partitions are then not even read.
  const partitions = policy.partitions ?? [];
  const names = partitions.length > 0 ? new Set(partitionsOf(spec)) : undefined;
  for (const rules of partitions) {
    if (!names?.has(rules.partition)) continue;
    const floor = rules.floors?.[resource];
    const cap = rules.caps?.[resource];
    const node = rules.nodeCapacity?.[resource];
    if (floor !== undefined) floors.push(floor);
    if (cap !== undefined) limits.push({ rule: "cap", value: cap });
    if (node !== undefined) limits.push({ rule: "node_capacity", value: node });
  }
  return floors.length > 0 ? { floor: Math.max(...floors), limits } : { limits };
}
