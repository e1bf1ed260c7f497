import {
  ATTR_CONTAINER_ID,
  ATTR_HOST_NAME,
  ATTR_K8S_NODE_NAME,
  ATTR_PROCESS_OWNER,
  ATTR_USER_NAME,
} from "@opentelemetry/semantic-conventions/incubating";
import { ObservationAttributes as O } from "../../mapping/metric-names.js";
import { type AttributeLookup, stringAttribute as text } from "../../mapping/point-attributes.js";
import type { SkipReason } from "../decoded-observations.js";
import { containerOnlyIdentity } from "./standard-container-only.js";
import { jobOf, type StandardIdentity, standardIdentity } from "./standard-identity.js";
import type { InputScope } from "./standard-inputs.js";

// What becomes of a standard input's point that names no job: a node-wide reading or a
// container's a caller holding job records may attribute, a container it cannot place, or nothing.

/** A node-wide point that names no job: the cluster and node it was read on. */
export type HostOnlyIdentity = { cluster: string; node: string; user: string | undefined };

/**
 * Why a point whose identity is incomplete is skipped: `container_unmapped` when it names a
 * `container.id` and no job (no pod uid or name beside it, and no caller that can look the
 * container up in job records: see `containerOnly`), else `unattributed`.
 */
export function unattributedReason(attributes: AttributeLookup): SkipReason {
  if (jobOf(attributes) === undefined && text(attributes, ATTR_CONTAINER_ID) !== undefined) {
    return "container_unmapped";
  }
  return "unattributed";
}

/**
 * The cluster and node of a point that names no job but was read on a whole node (`host.name`,
 * else `k8s.node.name`): only node-scope inputs (`system.*`, `hw.gpu.*`), since a process or a
 * container is not the node. `undefined` when the point names a job, a container, or no node.
 *
 * @example
 * ```ts
 * hostOnlyIdentity(attributes, "node", "hpc1"); // { cluster: "hpc1", node: "n1", user: undefined }
 * ```
 */
export function hostOnlyIdentity(
  attributes: AttributeLookup,
  scope: InputScope,
  senderCluster: string | undefined,
): HostOnlyIdentity | undefined {
  if (scope !== "node" || jobOf(attributes) !== undefined) return undefined;
  if (text(attributes, ATTR_CONTAINER_ID) !== undefined) return undefined;
  const cluster = text(attributes, O.cluster) ?? senderCluster;
  const node = text(attributes, ATTR_HOST_NAME) ?? text(attributes, ATTR_K8S_NODE_NAME);
  if (!cluster || !node) return undefined;
  return { cluster, node, user: text(attributes, ATTR_USER_NAME) ?? text(attributes, ATTR_PROCESS_OWNER) };
}

/** Which points that name no job a caller holding job records wants back (see `DecodeObservationsOptions`). */
export type UnattributedOptions = { hostOnly: boolean; containerOnly: boolean };

/**
 * The identity of a standard input's point: the job its attributes name; with `hostOnly`, for a
 * node-wide point naming only its node, that node with job id `""`; with `containerOnly`, for a
 * container's or process's point naming only its `container.id`, that container (job id `""`,
 * node `""` when the point names none); the caller attributes both. Else why it is skipped.
 *
 * @example
 * ```ts
 * pointIdentity(attributes, "container", "k8s1", { hostOnly: true, containerOnly: true });
 * ```
 */
export function pointIdentity(
  attributes: AttributeLookup,
  scope: InputScope,
  senderCluster: string | undefined,
  options: UnattributedOptions,
): (StandardIdentity & { containerId?: string }) | SkipReason {
  const found = standardIdentity(attributes, senderCluster);
  if (typeof found !== "string") return found;
  const host = options.hostOnly ? hostOnlyIdentity(attributes, scope, senderCluster) : undefined;
  if (host) return { ...host, jobId: "", step: undefined };
  const container = options.containerOnly
    ? containerOnlyIdentity(attributes, scope, senderCluster)
    : undefined;
  if (container) return { ...container, jobId: "", user: undefined };
  return unattributedReason(attributes);
}
