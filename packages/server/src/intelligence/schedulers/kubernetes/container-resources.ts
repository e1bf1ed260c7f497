import { parseQuantity } from "@jobsight/schemas";
import { isObject, type JsonPatchOperation, jsonPointer } from "./json-patch.js";
import type { ContainerRef } from "./pod-workloads.js";
import { formatCpuQuantity, formatMemoryQuantity } from "./quantity.js";

/** The resources the webhook sets on containers. */
export type PodResource = "memory" | "cores" | "gpus";

/** The `resources.requests/limits` key of each. */
export const RESOURCE_KEYS: Record<PodResource, string> = {
  memory: "memory",
  cores: "cpu",
  gpus: "nvidia.com/gpu",
};

/** One resource of one container. */
export type ContainerAmount = {
  request?: number;
  limit?: number;
  /** What the container gets: the request, else the limit (Kubernetes defaults a missing request to the limit). */
  effective?: number;
  /** A quantity that is there but is not one (a template placeholder): the container is not touched. */
  unreadable: boolean;
};

type Section = "requests" | "limits";

/** One quantity to write. */
export type ResourceWrite = { section: Section; key: string; value: string };

function section(container: Record<string, unknown>, name: Section): Record<string, unknown> | undefined {
  const resources = container.resources;
  if (!isObject(resources)) return undefined;
  const s = resources[name];
  return isObject(s) ? s : undefined;
}

/** Read one resource of a container. GPUs are read from limits first, where Kubernetes requires them. */
export function readAmount(container: Record<string, unknown>, resource: PodResource): ContainerAmount {
  const key = RESOURCE_KEYS[resource];
  const rawRequest = section(container, "requests")?.[key];
  const rawLimit = section(container, "limits")?.[key];
  const request = rawRequest === undefined || rawRequest === null ? undefined : parseQuantity(rawRequest);
  const limit = rawLimit === undefined || rawLimit === null ? undefined : parseQuantity(rawLimit);
  const unreadable =
    (rawRequest !== undefined && rawRequest !== null && request === undefined) ||
    (rawLimit !== undefined && rawLimit !== null && limit === undefined);
  const effective = resource === "gpus" ? (limit ?? request) : (request ?? limit);
  return { request, limit, effective, unreadable };
}

/** The quantity as the webhook writes it, and the number Kubernetes will read back from it. */
export function formatAmount(resource: PodResource, value: number): { text: string; value: number } {
  const text =
    resource === "memory"
      ? formatMemoryQuantity(value)
      : resource === "cores"
        ? formatCpuQuantity(value)
        : String(Math.ceil(value));
  return { text, value: parseQuantity(text)! };
}

/**
 * What to write so that the container gets `target`, keeping the manifest valid (request ≤ limit)
 * and its pattern: a request equal to its limit stays equal (the pod keeps its QoS class); a
 * limit alone stays alone; a limit is raised when the new request would pass it, never lowered
 * otherwise. GPUs are set in limits, and in requests too when they are there (they must match).
 */
export function planWrites(
  container: Record<string, unknown>,
  resource: PodResource,
  target: number,
): ResourceWrite[] {
  const key = RESOURCE_KEYS[resource];
  const a = readAmount(container, resource);
  const { text, value } = formatAmount(resource, target);
  const write = (s: Section): ResourceWrite => ({ section: s, key, value: text });
  if (resource === "gpus") {
    if (a.limit === value && (a.request === undefined || a.request === value)) return [];
    return a.request !== undefined ? [write("limits"), write("requests")] : [write("limits")];
  }
  if (a.request !== undefined && a.limit !== undefined) {
    if (a.request === a.limit) return a.request === value ? [] : [write("requests"), write("limits")];
    const writes = a.request === value ? [] : [write("requests")];
    if (a.limit < value) writes.push(write("limits"));
    return writes;
  }
  if (a.limit !== undefined) return a.limit === value ? [] : [write("limits")];
  return a.request === value ? [] : [write("requests")];
}

/**
 * The JSONPatch operations for all writes to one container, creating `resources`, `requests` or
 * `limits` in one operation each where they are missing (several `add`s of the same missing
 * object would overwrite one another).
 */
export function containerPatch(ref: ContainerRef, writes: readonly ResourceWrite[]): JsonPatchOperation[] {
  if (writes.length === 0) return [];
  const bySection = new Map<Section, Record<string, string>>();
  for (const w of writes) bySection.set(w.section, { ...bySection.get(w.section), [w.key]: w.value });
  const resourcesPath = [...ref.path, "resources"];
  if (!isObject(ref.container.resources)) {
    return [{ op: "add", path: jsonPointer(resourcesPath), value: Object.fromEntries(bySection) }];
  }
  const ops: JsonPatchOperation[] = [];
  for (const [name, values] of bySection) {
    if (!section(ref.container, name)) {
      ops.push({ op: "add", path: jsonPointer([...resourcesPath, name]), value: values });
      continue;
    }
    for (const [key, value] of Object.entries(values)) {
      ops.push({ op: "add", path: jsonPointer([...resourcesPath, name, key]), value });
    }
  }
  return ops;
}
