import type { JobSpec } from "@jobsight/schemas";
import { type ContainerAmount, type PodResource, readAmount } from "./container-resources.js";
import { isObject } from "./json-patch.js";
import type { ContainerRef, PodWorkload } from "./pod-workloads.js";

/** A pod annotation naming the container Jobsight resizes. */
export const CONTAINER_ANNOTATION = "jobsight.io/container";
/** A label naming the user a pod runs for, when the submitter is a controller. */
export const USER_LABEL = "jobsight.io/user";

const GPU_MODEL_LABELS = ["nvidia.com/gpu.product", "cloud.google.com/gke-accelerator", "accelerator"];

/**
 * The container a pod-level prediction is applied to. Sidecars (proxies, log shippers, Argo's
 * `wait`) keep their own requests: their needs do not grow with the workload's, so splitting the
 * prediction by request shares would scale them for nothing. The choice: the `jobsight.io/container`
 * annotation, Argo's `main`, `kubectl.kubernetes.io/default-container`, else the first container.
 */
export function mainContainer(w: PodWorkload): ContainerRef | undefined {
  const byName = (name: string | undefined) => (name ? w.containers.find((c) => c.name === name) : undefined);
  return (
    byName(w.annotations[CONTAINER_ANNOTATION]) ??
    (w.argoWorkflow !== undefined || w.template !== undefined ? byName("main") : undefined) ??
    byName(w.annotations["kubectl.kubernetes.io/default-container"]) ??
    w.containers[0]
  );
}

/** A resource summed over the pod's containers, and what the containers other than `main` hold. */
export type PodAmount = { total?: number; others: number; main: ContainerAmount; unreadable: boolean };

/** The pod's amount of one resource (init containers do not count: they run before, one at a time). */
export function podAmount(w: PodWorkload, main: ContainerRef, resource: PodResource): PodAmount {
  let total: number | undefined;
  let others = 0;
  let unreadable = false;
  let mainAmount: ContainerAmount = { unreadable: false };
  for (const ref of w.containers) {
    const a = readAmount(ref.container, resource);
    unreadable ||= a.unreadable;
    if (ref === main) mainAmount = a;
    else others += a.effective ?? 0;
    if (a.effective !== undefined) total = (total ?? 0) + a.effective;
  }
  return { total, others, main: mainAmount, unreadable };
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max);
}

/** Whose job it is: the `jobsight.io/user` label, the person who created it, else its service account. */
export function userOf(
  w: PodWorkload,
  requestUser: string | undefined,
  namespace: string | undefined,
): string {
  const label = w.labels[USER_LABEL];
  if (label) return bounded(label, 128);
  // Controllers (the Job controller, Argo) create pods as system:serviceaccount:…; the pod's own
  // service account then says more about whose work it is.
  if (requestUser && !requestUser.startsWith("system:")) return bounded(requestUser, 128);
  const sa = w.podFields.serviceAccountName ?? w.podFields.serviceAccount;
  return bounded(
    `system:serviceaccount:${namespace ?? "default"}:${typeof sa === "string" && sa ? sa : "default"}`,
    128,
  );
}

function jobNameOf(w: PodWorkload): string {
  if (w.argoWorkflow !== undefined) return `${w.argoWorkflow}/${w.template ?? w.objectName}`;
  if (w.template !== undefined) return `${w.objectName}/${w.template}`;
  return w.labels["batch.kubernetes.io/job-name"] ?? w.labels["job-name"] ?? w.objectName;
}

/** The scheduler-neutral description of a workload, in the same terms as `jobsight predict` reads a manifest. */
export function jobSpecOf(
  w: PodWorkload,
  main: ContainerRef,
  context: { cluster: string; namespace?: string; requestUser?: string },
): JobSpec {
  const spec: JobSpec = {
    cluster: context.cluster,
    scheduler: "kubernetes",
    user: userOf(w, context.requestUser, context.namespace),
    jobName: bounded(jobNameOf(w), 512),
    requested: {},
  };
  if (context.namespace) spec.account = bounded(context.namespace, 128);
  const queue = w.labels["kueue.x-k8s.io/queue-name"];
  if (queue) spec.partition = bounded(queue, 128);
  const priority = w.podFields.priorityClassName ?? w.podFields.podPriorityClassName;
  if (typeof priority === "string" && priority) spec.qos = bounded(priority, 128);
  const image = main.container.image;
  if (typeof image === "string" && image) spec.executable = bounded(image, 1024);
  const memory = podAmount(w, main, "memory").total;
  const cores = podAmount(w, main, "cores").total;
  const gpus = podAmount(w, main, "gpus").total;
  if (memory !== undefined && memory > 0) spec.requested.memoryBytes = Math.ceil(memory);
  if (cores !== undefined && cores > 0)
    spec.requested.cores = Math.max(0.001, Math.round(cores * 1000) / 1000);
  if (gpus !== undefined) spec.requested.gpus = Math.round(gpus);
  const deadline = w.podFields.activeDeadlineSeconds;
  if (typeof deadline === "number" && Number.isInteger(deadline) && deadline > 0)
    spec.requested.walltimeSeconds = deadline;
  const selector = w.podFields.nodeSelector;
  if (isObject(selector)) {
    const model = GPU_MODEL_LABELS.map((l) => selector[l]).find((v) => typeof v === "string" && v);
    if (typeof model === "string") spec.requested.gpuModel = bounded(model, 128);
  }
  if (w.indexedCompletions !== undefined)
    spec.array = { arrayJobId: bounded(w.objectName, 128), taskCount: w.indexedCompletions };
  return spec;
}
