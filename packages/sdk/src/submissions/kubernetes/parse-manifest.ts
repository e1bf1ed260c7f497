import type { JobSpec, ResourceRequest } from "@jobsight/schemas";
import type { ParsedSubmission, SubmissionContext } from "../submission-context.js";
import { readResource, resourceKeys } from "./container-resources.js";
import { mapAt, readManifest, selectWorkload, type Workload } from "./manifest-workloads.js";

/** Options of {@link parseManifest}. */
export type ManifestContext = SubmissionContext & {
  /** Which workload to read (id such as `Job/train`, name, or Argo template name); by default the Argo entrypoint or the first. */
  workload?: string;
};

const gpuModelLabels = ["nvidia.com/gpu.product", "cloud.google.com/gke-accelerator", "accelerator"];

/** Sum one resource over a workload's containers; undefined when no container sets it. */
function total(workload: Workload, key: string, warnings: string[]): number | undefined {
  let sum: number | undefined;
  for (const container of workload.containers) {
    const r = readResource(container, key);
    warnings.push(
      ...r.invalid.map((text) => `${workload.id}: ${text} is not a Kubernetes quantity; ignored`),
    );
    if (r.effective !== undefined) sum = (sum ?? 0) + r.effective;
  }
  return sum;
}

/** What a workload asks for, for the whole pod. */
export function requestedOf(workload: Workload, warnings: string[]): ResourceRequest {
  const requested: ResourceRequest = {};
  const memory = total(workload, resourceKeys.memory, warnings);
  const cpu = total(workload, resourceKeys.cores, warnings);
  const gpus = total(workload, resourceKeys.gpus, warnings);
  if (memory !== undefined && memory > 0) requested.memoryBytes = Math.ceil(memory);
  // Kubernetes asks for fractions of a core (500m); kept to the millicore.
  if (cpu !== undefined && cpu > 0) requested.cores = Math.max(0.001, Math.round(cpu * 1000) / 1000);
  if (gpus !== undefined) requested.gpus = Math.round(gpus);
  const selector = mapAt(workload.podSpec, "nodeSelector");
  for (const label of gpuModelLabels) {
    const model = selector?.get(label);
    if (model !== undefined && model !== null) {
      requested.gpuModel = String(model);
      break;
    }
  }
  const deadline = workload.deadline?.value;
  if (deadline !== undefined && deadline !== null) {
    const seconds = Number(deadline);
    if (Number.isInteger(seconds) && seconds > 0) requested.walltimeSeconds = seconds;
    else
      warnings.push(
        `${workload.id}: activeDeadlineSeconds ${String(deadline)} is not a number of seconds; ignored`,
      );
  }
  return requested;
}

/**
 * Read a Kubernetes manifest (Pod, Job, CronJob, Deployment and other pod templates, Argo
 * Workflow/WorkflowTemplate/CronWorkflow templates; several documents allowed) into a `JobSpec`
 * of one workload: `resources.requests` (or limits where no request is set) summed over its
 * containers, `nvidia.com/gpu`, `activeDeadlineSeconds` as walltime, the namespace as account.
 *
 * @example
 * ```ts
 * const { spec } = parseManifest(podYaml, { cluster: "k8s1", user: "alice" });
 * spec.requested; // { memoryBytes: 17179869184, cores: 4, gpus: 1 }
 * ```
 */
export function parseManifest(
  text: string,
  context: ManifestContext,
): ParsedSubmission & { workload: string; labels: Record<string, string> } {
  const manifest = readManifest(text);
  if (manifest.errors.length > 0) throw new SyntaxError(`not valid YAML: ${manifest.errors[0]}`);
  const workload = selectWorkload(manifest, context.workload);
  if (!workload) {
    throw new SyntaxError(
      context.workload === undefined
        ? "no Pod, Job, CronJob, Deployment or Argo template with containers in this manifest"
        : `no workload named ${context.workload} (found: ${manifest.workloads.map((w) => w.id).join(", ") || "none"})`,
    );
  }
  const warnings: string[] = [];
  const spec: JobSpec = {
    cluster: context.cluster,
    scheduler: "kubernetes",
    user: context.user,
    requested: requestedOf(workload, warnings),
  };
  const queue = workload.labels["kueue.x-k8s.io/queue-name"];
  const priorityClass =
    workload.podSpec?.get("priorityClassName") ?? workload.podSpec?.get("podPriorityClassName");
  const image = workload.containers[0]?.get("image");
  if (workload.namespace) spec.account = workload.namespace;
  if (queue) spec.partition = queue;
  if (typeof priorityClass === "string" && priorityClass) spec.qos = priorityClass;
  spec.jobName =
    workload.objectName === workload.name ? workload.name : `${workload.objectName}/${workload.name}`;
  if (typeof image === "string" && image) spec.executable = image;
  if (workload.indexedCompletions) {
    spec.array = { arrayJobId: workload.objectName, taskCount: workload.indexedCompletions };
  }
  return { format: "kubernetes", spec, warnings, workload: workload.id, labels: workload.labels };
}
