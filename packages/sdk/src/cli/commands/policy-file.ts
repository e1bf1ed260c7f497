import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type FieldError, type Policy, validatePolicy } from "@jobsight/schemas";
import { UsageError } from "../cli-errors.js";
import type { CliIo } from "../cli-io.js";
import { formatAmount, RESOURCES } from "./policy-render.js";

type Bound = { path: string; value: number; partition?: number };

/**
 * Rules of a schema-valid policy that contradict each other: a floor above a cap or a node's
 * capacity, a resource both left alone and never lowered, a partition listed twice.
 *
 * The server refuses the same policies (`checkPolicy` in `@jobsight/server`); the SDK may not
 * import the server, so this is a copy, kept so that `validate` answers offline what `set` would.
 *
 * @example
 * ```ts
 * policyContradictions({ name: "p", floors: { memory: 8 * 2 ** 30 }, caps: { memory: 4 * 2 ** 30 } });
 * // [{ path: "/floors/memory", message: "floor 8 GiB is above the cap 4 GiB (/caps/memory)" }]
 * ```
 */
export function policyContradictions(policy: Policy): FieldError[] {
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
        // Two partitions' rules never meet on one job; the global rules meet every partition's.
        const meet =
          floor.partition === undefined || cap.partition === undefined || floor.partition === cap.partition;
        if (meet && floor.value > cap.value) {
          const what = cap.path.includes("nodeCapacity") ? "node capacity" : "cap";
          problems.push({
            path: floor.path,
            message: `floor ${formatAmount(resource, floor.value)} is above the ${what} ${formatAmount(resource, cap.value)} (${cap.path})`,
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
    if (seen.has(rules.partition))
      problems.push({
        path: `/partitions/${i}/partition`,
        message: `partition ${rules.partition} is listed twice`,
      });
    seen.add(rules.partition);
  });
  return problems;
}

/**
 * Read a policy JSON file and check it against the schema, then for contradicting rules; every
 * problem is reported at once as `path: message` in a {@link UsageError}, so nothing half-checked
 * reaches the server.
 */
export async function readPolicyFile(file: string, io: CliIo): Promise<Policy> {
  const text = await readFile(resolve(io.cwd, file), "utf8").catch((e: Error) => {
    throw new UsageError(`${file}: ${e.message}`);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file}: not JSON (${(e as Error).message})`);
  }
  const result = validatePolicy(value);
  // Contradictions are looked for only in a policy of the right shape, as the server does: rules
  // of the wrong type cannot be compared.
  const problems = result.ok ? policyContradictions(result.value) : result.errors;
  if (!result.ok || problems.length > 0) {
    const lines = problems.map((p) => `${p.path || "/"}: ${p.message}`);
    const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
    throw new UsageError(`${file}: not a valid policy (${count}):\n  ${lines.join("\n  ")}`);
  }
  return result.value;
}
