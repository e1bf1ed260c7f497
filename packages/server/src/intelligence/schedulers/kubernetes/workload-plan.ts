import type { PolicyAdjustment } from "@jobsight/schemas";
import type { AppliedResource, PolicyDecision } from "../../policy/apply-policy.js";
import {
  containerPatch,
  formatAmount,
  type PodResource,
  planWrites,
  type ResourceWrite,
} from "./container-resources.js";
import type { JsonPatchOperation } from "./json-patch.js";
import { podAmount } from "./pod-job-spec.js";
import type { ContainerRef, PodWorkload } from "./pod-workloads.js";

/** How init containers are treated. */
export type InitContainerMode = "leave" | "match-main";

/** One change written to one container, as the `jobsight.io/changes` annotation lists it. */
export type ContainerChange = {
  container: string;
  resource: PodResource;
  /** The container's quantity before, when it had one. */
  before?: string;
  after: string;
  /** The policy rules that moved the value, in order. */
  rules: PolicyAdjustment["rule"][];
};

/** Why a changed recommendation could not be written to the pod. */
export type UnwritableReason = "unreadable_quantity" | "sidecars_exceed_prediction";

/** What to do to one workload. */
export type WorkloadPlan = {
  ops: JsonPatchOperation[];
  changes: ContainerChange[];
  /** The decisions actually written (pod-level), for the audit. */
  written: AppliedResource[];
  unwritable: { resource: PodResource; reason: UnwritableReason }[];
};

const POD_RESOURCES: readonly PodResource[] = ["memory", "cores", "gpus"];

function describe(
  ref: ContainerRef,
  resource: PodResource,
  writes: ResourceWrite[],
  target: number,
  before: number | undefined,
  rules: PolicyAdjustment["rule"][],
): ContainerChange {
  const change: ContainerChange = {
    container: ref.name,
    resource,
    after: writes[0]?.value ?? formatAmount(resource, target).text,
    rules,
  };
  if (before !== undefined) change.before = formatAmount(resource, before).text;
  return change;
}

/**
 * Turn a pod-level decision into writes on the workload's main container: the main container gets
 * the pod's value minus what the other containers hold (they keep theirs). Init containers are
 * left alone unless `initContainers` is `match-main`, in which case they get the main container's
 * new value. A resource is not written when a quantity of the pod cannot be read (a template
 * placeholder) or when the other containers already hold more than the pod should get.
 */
export function planWorkload(
  w: PodWorkload,
  main: ContainerRef,
  decision: PolicyDecision,
  initContainers: InitContainerMode,
): WorkloadPlan {
  const plan: WorkloadPlan = { ops: [], changes: [], written: [], unwritable: [] };
  const writesByContainer = new Map<ContainerRef, ResourceWrite[]>();
  const addWrites = (ref: ContainerRef, writes: ResourceWrite[]) => {
    if (writes.length > 0) writesByContainer.set(ref, [...(writesByContainer.get(ref) ?? []), ...writes]);
  };
  for (const r of decision.resources) {
    const resource = r.resource as PodResource;
    if (!POD_RESOURCES.includes(resource) || !r.changed || r.value === undefined) continue;
    const amount = podAmount(w, main, resource);
    if (amount.unreadable) {
      plan.unwritable.push({ resource, reason: "unreadable_quantity" });
      continue;
    }
    const target = r.value - amount.others;
    if (target <= 0 || (resource === "gpus" && target < 1)) {
      plan.unwritable.push({ resource, reason: "sidecars_exceed_prediction" });
      continue;
    }
    const rules = r.adjustments.map((a) => a.rule);
    const writes = planWrites(main.container, resource, target);
    if (writes.length === 0) continue;
    addWrites(main, writes);
    plan.changes.push(describe(main, resource, writes, target, amount.main.effective, rules));
    plan.written.push(r);
    if (initContainers === "match-main") {
      for (const init of w.initContainers) {
        const initWrites = planWrites(init.container, resource, target);
        if (initWrites.length === 0) continue;
        addWrites(init, initWrites);
        plan.changes.push(describe(init, resource, initWrites, target, undefined, rules));
      }
    }
  }
  for (const [ref, writes] of writesByContainer) plan.ops.push(...containerPatch(ref, writes));
  return plan;
}
