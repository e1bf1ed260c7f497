import {
  ATTR_CONTAINER_ID,
  ATTR_CONTAINER_NAME,
  ATTR_HOST_NAME,
  ATTR_K8S_CONTAINER_NAME,
  ATTR_K8S_NODE_NAME,
} from "@opentelemetry/semantic-conventions/incubating";
import { ObservationAttributes as O } from "../../mapping/metric-names.js";
import { type AttributeLookup, stringAttribute as text } from "../../mapping/point-attributes.js";
import { jobOf } from "./standard-identity.js";
import type { InputScope } from "./standard-inputs.js";

// A container's or process's reading that names its container and no job: which job ran that
// container only a caller holding Kubernetes job records knows (`JobRecord.containerIds`).

/**
 * A container- or process-scope point that names a `container.id` and no job: the cluster, the
 * node when the point names it (`""` otherwise), the container's name as the step, and the
 * runtime id in the form job records list it.
 */
export type ContainerOnlyIdentity = {
  cluster: string;
  node: string;
  step: string | undefined;
  containerId: string;
};

// `containerd://`, `cri-o://`, `docker://`: Kubernetes writes a container status's id so, and
// some receivers pass it on as they found it.
const RUNTIME_PREFIX = /^[a-z][a-z0-9+.-]*:\/\//;
const RUNTIME_ID = /^[0-9a-f]{12,128}$/;

/**
 * A `container.id` as job records list it: lower-case hex without a runtime prefix; `undefined`
 * when what remains is not 12 to 128 hex digits (no record can list it).
 *
 * @example
 * ```ts
 * containerRuntimeId("containerd://9F86D081884C"); // "9f86d081884c"
 * ```
 */
export function containerRuntimeId(value: string): string | undefined {
  const id = value.trim().toLowerCase().replace(RUNTIME_PREFIX, "");
  return RUNTIME_ID.test(id) ? id : undefined;
}

/**
 * The identity of a container- or process-scope point that names a usable `container.id` and no
 * job (see {@link ContainerOnlyIdentity}); the step is `k8s.container.name`, else
 * `container.name`. Never a user: the job's record says whose it is. `undefined` for a point of
 * another scope, one that names a job, no container, no cluster, or an id that is not hex.
 *
 * @example
 * ```ts
 * containerOnlyIdentity(attributes, "container", "k8s1"); // { cluster: "k8s1", node: "", step: undefined, containerId: "9f86…" }
 * ```
 */
export function containerOnlyIdentity(
  attributes: AttributeLookup,
  scope: InputScope,
  senderCluster: string | undefined,
): ContainerOnlyIdentity | undefined {
  if (scope !== "container" && scope !== "process") return undefined;
  const raw = text(attributes, ATTR_CONTAINER_ID);
  if (raw === undefined || jobOf(attributes) !== undefined) return undefined;
  const containerId = containerRuntimeId(raw);
  const cluster = text(attributes, O.cluster) ?? senderCluster;
  if (containerId === undefined || !cluster) return undefined;
  const node = text(attributes, ATTR_HOST_NAME) ?? text(attributes, ATTR_K8S_NODE_NAME) ?? "";
  const step = text(attributes, ATTR_K8S_CONTAINER_NAME) ?? text(attributes, ATTR_CONTAINER_NAME);
  return { cluster, node, step, containerId };
}
