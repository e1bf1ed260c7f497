import type { FieldError, Policy } from "@jobsight/schemas";
import { RESOURCE_NAMES } from "./policy-bounds.js";

/**
 * Rules of a policy that contradict each other, which the schema alone cannot see: a floor above
 * a cap or above a node's capacity (the cap would win), or a resource both left alone and never
 * lowered. Every problem is reported, each as `{ path, message }`.
 *
 * @example
 * ```ts
 * checkPolicy({ name: "p", floors: { memory: 8 }, caps: { memory: 4 } });
 * // [{ path: "/floors/memory", message: "floor 8 is above the cap 4 (/caps/memory)" }]
 * ```
 */
export function checkPolicy(policy: Policy): FieldError[] {
  const problems: FieldError[] = [];
  const partitions = policy.partitions ?? [];
  for (const resource of RESOURCE_NAMES) {
    const floors: { path: string; value: number }[] = [];
    const caps: { path: string; value: number }[] = [];
    const add = (into: typeof floors, path: string, value: number | undefined) => {
      if (value !== undefined) into.push({ path, value });
    };
    add(floors, `/floors/${resource}`, policy.floors?.[resource]);
    add(caps, `/caps/${resource}`, policy.caps?.[resource]);
    partitions.forEach((rules, i) => {
      add(floors, `/partitions/${i}/floors/${resource}`, rules.floors?.[resource]);
      add(caps, `/partitions/${i}/caps/${resource}`, rules.caps?.[resource]);
      add(caps, `/partitions/${i}/nodeCapacity/${resource}`, rules.nodeCapacity?.[resource]);
    });
    for (const floor of floors) {
      const floorPartition = partitionIndex(floor.path);
      for (const cap of caps) {
        const capPartition = partitionIndex(cap.path);
        // Rules of two different partitions never meet on the same job unless it names both;
        // the global rules meet every partition's.
        const meet =
          floorPartition === undefined || capPartition === undefined || floorPartition === capPartition;
        if (meet && floor.value > cap.value) {
          const what = cap.path.includes("nodeCapacity") ? "node capacity" : "cap";
          problems.push({
            path: floor.path,
            message: `floor ${floor.value} is above the ${what} ${cap.value} (${cap.path})`,
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

function partitionIndex(path: string): number | undefined {
  const match = /^\/partitions\/(\d+)\//.exec(path);
  return match ? Number(match[1]) : undefined;
}
