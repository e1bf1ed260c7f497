import {
  ATTR_HOST_NAME,
  ATTR_K8S_CONTAINER_NAME,
  ATTR_K8S_NAMESPACE_NAME,
  ATTR_K8S_NODE_NAME,
  ATTR_K8S_POD_NAME,
  ATTR_K8S_POD_UID,
  ATTR_PROCESS_LINUX_CGROUP,
  ATTR_PROCESS_OWNER,
  ATTR_USER_NAME,
} from "@opentelemetry/semantic-conventions/incubating";
import { jobFromCgroupPath, jobFromProcCgroup } from "../../mapping/cgroup-job-path.js";
import { ObservationAttributes as O } from "../../mapping/metric-names.js";
import type { AttributeLookup } from "../../mapping/point-attributes.js";

/** The OpenTelemetry Collector's hostmetrics `process` scraper names the cgroup so (opt-in). */
export const HOSTMETRICS_PROCESS_CGROUP = "process.cgroup";

/** The sample a standard input's point belongs to. */
export type StandardIdentity = {
  cluster: string;
  jobId: string;
  node: string;
  step: string | undefined;
  user: string | undefined;
};

/**
 * How a standard input's job is found, in this order: Jobsight's own `jobsight.job.id` (a site's
 * resource processor or a per-job collector adds it; it is how a SLURM job is named), the pod
 * `k8s.namespace.name`/`k8s.pod.name` (the job id Jobsight's Kubernetes controller records),
 * `k8s.pod.uid` (the job id Jobsight's node collector gives a pod's samples), then the process's
 * cgroup (`process.linux.cgroup`, or `process.cgroup` from the hostmetrics receiver) read with the
 * collector's own cgroup-path rules. A `container.id` alone names no job here, but Jobsight's
 * receiver gives a container or process input so to the job whose record lists that container
 * (`JobRecord.containerIds`, written by Jobsight's Kubernetes collector from the pod's container
 * statuses; see `containerOnly`), and counts it as `container_unmapped` when no record does;
 * `host.name` alone names none either, but the receiver attributes a node-wide input so to the one
 * job its records put alone on that node then (see `hostOnly`).
 */
export const JOB_ATTRIBUTE_ORDER = [
  O.jobId,
  `${ATTR_K8S_NAMESPACE_NAME} + ${ATTR_K8S_POD_NAME}`,
  ATTR_K8S_POD_UID,
  `${ATTR_PROCESS_LINUX_CGROUP} / ${HOSTMETRICS_PROCESS_CGROUP}`,
] as const;

function text(attributes: AttributeLookup, key: string): string | undefined {
  const value = attributes.get(key);
  if (typeof value === "number") return String(value);
  return typeof value === "string" && value !== "" ? value : undefined;
}

type JobAndStep = { jobId: string; step: string | undefined; node?: string };

/** The job a point's attributes name (see {@link JOB_ATTRIBUTE_ORDER}), or `undefined`. */
export function jobOf(attributes: AttributeLookup): JobAndStep | undefined {
  const container = text(attributes, ATTR_K8S_CONTAINER_NAME);
  const own = text(attributes, O.jobId);
  if (own) return { jobId: own, step: text(attributes, O.step) };
  const namespace = text(attributes, ATTR_K8S_NAMESPACE_NAME);
  const pod = text(attributes, ATTR_K8S_POD_NAME);
  if (namespace && pod) return { jobId: `${namespace}/${pod}`, step: container };
  const uid = text(attributes, ATTR_K8S_POD_UID);
  if (uid) return { jobId: uid.toLowerCase(), step: container };
  const cgroup = text(attributes, ATTR_PROCESS_LINUX_CGROUP) ?? text(attributes, HOSTMETRICS_PROCESS_CGROUP);
  if (!cgroup) return undefined;
  const found = cgroup.includes(":") ? jobFromProcCgroup(cgroup) : jobFromCgroupPath(cgroup);
  // A process's usage is summed into its whole job, as the job's cgroup counts it.
  return found && { jobId: found.jobId, step: undefined, node: found.nodePrefix };
}

/**
 * The sample identity of a standard input's point (looked up on the point, then its scope and
 * resource), or why it has none. The cluster is `jobsight.cluster` where given, else the
 * sender's (its token's); the node is `host.name`, else `k8s.node.name`.
 *
 * @example
 * ```ts
 * standardIdentity(attributes, "k8s1"); // { cluster: "k8s1", jobId: "ml/train-0", node: "n1", step: "trainer", user: undefined }
 * ```
 */
export function standardIdentity(
  attributes: AttributeLookup,
  senderCluster: string | undefined,
): StandardIdentity | string {
  const cluster = text(attributes, O.cluster) ?? senderCluster;
  if (!cluster) return `no ${O.cluster} and no sender cluster`;
  const job = jobOf(attributes);
  if (!job) return `no job attribute (${JOB_ATTRIBUTE_ORDER.join(", ")})`;
  const node = job.node ?? text(attributes, ATTR_HOST_NAME) ?? text(attributes, ATTR_K8S_NODE_NAME);
  if (!node) return `no ${ATTR_HOST_NAME} or ${ATTR_K8S_NODE_NAME}`;
  const user = text(attributes, ATTR_USER_NAME) ?? text(attributes, ATTR_PROCESS_OWNER);
  return { cluster, jobId: job.jobId, node, step: job.step, user };
}
