import type { FieldError } from "../api-error.js";
import type { Policy, ResourceValues } from "./policy.js";

type Resource = keyof ResourceValues;

const RESOURCES: readonly Resource[] = ["memory", "cores", "gpus", "gpuMemory", "walltime"];

/** Options of {@link checkPolicy}. */
export type CheckPolicyOptions = {
  /**
   * How an amount is written in a message (the SDK's CLI writes `8 GiB` where the server writes
   * the plain number of bytes).
   * @default String(value)
   */
  formatAmount?: (resource: Resource, value: number) => string;
};

type Bound = { path: string; value: number; partition?: number };

/**
 * Rules of a schema-valid policy that contradict each other, which the schema alone cannot see: a
 * floor above a cap or above a node's capacity (the cap would win), a resource both left alone and
 * never lowered, a partition listed twice. Every problem is reported, each as `{ path, message }`.
 * The server refuses these policies and `jobsight policy validate` reports them offline with this
 * same function, so the two always agree.
 *
 * @example
 * ```ts
 * checkPolicy({ name: "p", floors: { memory: 8 }, caps: { memory: 4 } });
 * // [{ path: "/floors/memory", message: "floor 8 is above the cap 4 (/caps/memory)" }]
 * ```
 */
export function checkPolicy(policy: Policy, options: CheckPolicyOptions = {}): FieldError[] {
  const format = options.formatAmount ?? ((_resource: Resource, value: number) => String(value));
  const problems: FieldError[] = [];
  const partitions = policy.partitions ?? [];
  for (const resource of RESOURCES) {
    const floors: Bound[] = [];
    const caps: Bound[] = [];
    const add = (into: Bound[], path: string, value: number | undefined, partition?: number) => {
      if (value !== undefined) into.push({ path, value, partition });
    };
    add(floors, `/floors/${resource}`, policy.floors?.[resource]);
    add(caps, `/caps/${resource}`, policy.caps?.[resource]);
    partitions.forEach((rules, i) => {
      add(floors, `/partitions/${i}/floors/${resource}`, rules.floors?.[resource], i);
      add(caps, `/partitions/${i}/caps/${resource}`, rules.caps?.[resource], i);
      add(caps, `/partitions/${i}/nodeCapacity/${resource}`, rules.nodeCapacity?.[resource], i);
    });
    for (const floor of floors) {
      for (const cap of caps) {
        // Rules of two different partitions never meet on the same job; the global rules meet
        // every partition's.
        const meet =
          floor.partition === undefined || cap.partition === undefined || floor.partition === cap.partition;
        if (meet && floor.value > cap.value) {
          const what = cap.path.includes("nodeCapacity") ? "node capacity" : "cap";
          problems.push({
            path: floor.path,
            message: `floor ${format(resource, floor.value)} is above the ${what} ${format(resource, cap.value)} (${cap.path})`,
          });
        }
      }
    }
  }
  for (const resource of policy.leaveAlone ?? []) {
    if (policy.neverLower?.includes(resource)) {
      problems.push({
        path: "/neverLower",
        message: `${resource} is also in leaveAlone, which already keeps it as requested`,
      });
    }
  }
  const seen = new Set<string>();
  partitions.forEach((rules, i) => {
    if (seen.has(rules.partition)) {
      problems.push({
        path: `/partitions/${i}/partition`,
        message: `partition ${rules.partition} is listed twice`,
      });
    }
    seen.add(rules.partition);
  });
  return problems;
}
