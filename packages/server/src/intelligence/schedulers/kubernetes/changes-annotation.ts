import type { Policy } from "@jobsight/schemas";
import { type JsonPatchOperation, setMember, valueAt } from "./json-patch.js";
import type { PodWorkload } from "./pod-workloads.js";
import type { ContainerChange } from "./workload-plan.js";

/** The annotation that records what the webhook changed (JSON), and marks a pod as handled. */
export const CHANGES_ANNOTATION = "jobsight.io/changes";

/**
 * The operations that write `jobsight.io/changes` where the workload's pods inherit it: the
 * Pod's metadata, a Job's or CronJob's pod template, an Argo template's `metadata`.
 */
export function changesAnnotationOps(
  root: Record<string, unknown>,
  w: PodWorkload,
  record: { modelVersion: string; policy: string; changes: ContainerChange[] },
): JsonPatchOperation[] {
  return setMember(root, [...w.metadataPath, "annotations"], CHANGES_ANNOTATION, JSON.stringify(record));
}

/** One line for the submitter (a kubectl warning): `Pod ml/x: trainer memory 16Gi→10Gi, …`. */
export function describeChanges(w: PodWorkload, changes: readonly ContainerChange[]): string {
  const parts = changes.map((c) => `${c.container} ${c.resource} ${c.before ?? "unset"}→${c.after}`);
  return `${w.id}: ${parts.join(", ")}`;
}

/** Whether the policy's namespace rules let the webhook act in `namespace` (exclusion wins). */
export function namespaceAllowed(policy: Policy, namespace: string | undefined): boolean {
  const { include, exclude } = policy.namespaces ?? {};
  if (namespace !== undefined && exclude?.includes(namespace)) return false;
  if (include && include.length > 0) return namespace !== undefined && include.includes(namespace);
  return true;
}

/** The namespace of the review, else the object's own. */
export function namespaceOf(
  reviewNamespace: string | undefined,
  object: Record<string, unknown>,
): string | undefined {
  if (reviewNamespace) return reviewNamespace;
  const ns = valueAt(object, ["metadata", "namespace"]);
  return typeof ns === "string" && ns ? ns : undefined;
}
