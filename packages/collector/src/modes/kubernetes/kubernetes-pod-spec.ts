import type { JobSpec, ResourceRequest } from "@jobsight/schemas/light";
import { parseQuantity } from "@jobsight/schemas/light";
import type { V1Container, V1Pod } from "@kubernetes/client-node";

/** A label naming the user a pod runs for (the same label the server's admission webhook reads). */
export const USER_LABEL = "jobsight.io/user";

/** Extended resources counted as GPUs. */
export const GPU_RESOURCES = ["nvidia.com/gpu", "amd.com/gpu"] as const;

const GPU_MODEL_LABELS = ["nvidia.com/gpu.product", "cloud.google.com/gke-accelerator", "accelerator"];

/** What one container, or a whole pod, asks for: bytes, cores, devices. */
export type PodAmounts = { memory: number; cores: number; gpus: number };

const zero = (): PodAmounts => ({ memory: 0, cores: 0, gpus: 0 });
const add = (a: PodAmounts, b: PodAmounts): PodAmounts => ({
  memory: a.memory + b.memory,
  cores: a.cores + b.cores,
  gpus: a.gpus + b.gpus,
});
const max = (a: PodAmounts, b: PodAmounts): PodAmounts => ({
  memory: Math.max(a.memory, b.memory),
  cores: Math.max(a.cores, b.cores),
  gpus: Math.max(a.gpus, b.gpus),
});

type ResourceList = Record<string, unknown> | undefined;

function amounts(requests: ResourceList, limits: ResourceList): PodAmounts {
  // The API server defaults a missing request to the limit; extended resources (GPUs) must be
  // given as limits, and a request for one, if any, equals it.
  const read = (key: string, limitFirst = false) => {
    const r = parseQuantity(requests?.[key]);
    const l = parseQuantity(limits?.[key]);
    return (limitFirst ? (l ?? r) : (r ?? l)) ?? 0;
  };
  return {
    memory: read("memory"),
    cores: read("cpu"),
    gpus: GPU_RESOURCES.reduce((sum, key) => sum + read(key, true), 0),
  };
}

/** What one container asks for. */
export function containerAmounts(c: V1Container): PodAmounts {
  return amounts(c.resources?.requests, c.resources?.limits);
}

/**
 * What a pod asks for, as the scheduler counts it: the larger of the app containers' sum (with
 * sidecars, init containers whose `restartPolicy` is `Always`) and the largest init container
 * (plus the sidecars started before it), plus the pod overhead. Pod-level `spec.resources`, where
 * set, wins for the resources it names.
 *
 * @example
 * ```ts
 * podRequests(pod); // { memory: 2147483648, cores: 1.5, gpus: 1 }
 * ```
 */
export function podRequests(pod: V1Pod): PodAmounts {
  const spec = pod.spec;
  let apps = zero();
  for (const c of spec?.containers ?? []) apps = add(apps, containerAmounts(c));
  let sidecars = zero();
  let init = zero();
  for (const c of spec?.initContainers ?? []) {
    const own = containerAmounts(c);
    if (c.restartPolicy === "Always") {
      apps = add(apps, own);
      sidecars = add(sidecars, own);
      init = max(init, sidecars);
    } else init = max(init, add(own, sidecars));
  }
  let total = add(max(apps, init), amounts(spec?.overhead, undefined));
  const podLevel = (spec as { resources?: { requests?: ResourceList; limits?: ResourceList } } | undefined)
    ?.resources;
  if (podLevel) {
    const p = amounts(podLevel.requests, podLevel.limits);
    total = {
      memory: p.memory || total.memory,
      cores: p.cores || total.cores,
      gpus: total.gpus,
    };
  }
  return total;
}

/** The container whose image names the job: the `kubectl.kubernetes.io/default-container`, else the first. */
export function mainContainer(pod: V1Pod): V1Container | undefined {
  const containers = pod.spec?.containers ?? [];
  const named = pod.metadata?.annotations?.["kubectl.kubernetes.io/default-container"];
  return containers.find((c) => c.name === named) ?? containers[0];
}

const bounded = (text: string, n: number) => (text.length <= n ? text : text.slice(0, n));

/** Whose job it is: the `jobsight.io/user` label, else the pod's service account. */
export function podUser(pod: V1Pod): string {
  const label = pod.metadata?.labels?.[USER_LABEL];
  if (label) return bounded(label, 128);
  const sa = pod.spec?.serviceAccountName || pod.spec?.serviceAccount || "default";
  return bounded(`system:serviceaccount:${pod.metadata?.namespace ?? "default"}:${sa}`, 128);
}

/** Resources requested by a pod, in Jobsight's units. */
export function requestedOf(pod: V1Pod): ResourceRequest {
  const r = podRequests(pod);
  const requested: ResourceRequest = {};
  if (r.memory > 0) requested.memoryBytes = Math.ceil(r.memory);
  if (r.cores > 0) requested.cores = Math.max(0.001, Math.round(r.cores * 1000) / 1000);
  if (r.gpus > 0) requested.gpus = Math.round(r.gpus);
  const deadline = pod.spec?.activeDeadlineSeconds;
  if (typeof deadline === "number" && Number.isInteger(deadline) && deadline > 0)
    requested.walltimeSeconds = deadline;
  const selector = pod.spec?.nodeSelector ?? {};
  const model = GPU_MODEL_LABELS.map((l) => selector[l]).find((v) => typeof v === "string" && v);
  if (model && requested.gpus) requested.gpuModel = bounded(model, 128);
  return requested;
}

/**
 * The scheduler-neutral description of a pod: namespace as account, Kueue queue as partition,
 * priority class as qos, the Job's name as job name, the main container's image as executable.
 *
 * @example
 * ```ts
 * jobSpecFromPod(pod, "k8s1").requested; // { memoryBytes: 4294967296, cores: 2, gpus: 1 }
 * ```
 */
export function jobSpecFromPod(pod: V1Pod, cluster: string): JobSpec {
  const meta = pod.metadata ?? {};
  const labels = meta.labels ?? {};
  const spec: JobSpec = { cluster, scheduler: "kubernetes", user: podUser(pod), requested: requestedOf(pod) };
  if (meta.namespace) spec.account = bounded(meta.namespace, 128);
  const queue = labels["kueue.x-k8s.io/queue-name"];
  if (queue) spec.partition = bounded(queue, 128);
  if (pod.spec?.priorityClassName) spec.qos = bounded(pod.spec.priorityClassName, 128);
  const jobName = labels["batch.kubernetes.io/job-name"] ?? labels["job-name"] ?? meta.name;
  if (jobName) spec.jobName = bounded(jobName, 512);
  const image = mainContainer(pod)?.image;
  if (image) spec.executable = bounded(image, 1024);
  const index =
    labels["batch.kubernetes.io/job-completion-index"] ??
    meta.annotations?.["batch.kubernetes.io/job-completion-index"];
  if (index !== undefined && /^\d+$/.test(index)) {
    spec.array = { taskId: Number(index) };
    if (jobName) spec.array.arrayJobId = bounded(jobName, 128);
  }
  return spec;
}
