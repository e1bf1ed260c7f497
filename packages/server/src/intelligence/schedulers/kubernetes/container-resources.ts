import {
  formatQuantityLike,
  parseQuantity,
  planQuantityWrites,
  type QuantityKind,
  type QuantitySection as Section,
} from "@jobsight/schemas";
import { isObject, type JsonPatchOperation, jsonPointer } from "./json-patch.js";
import type { ContainerRef } from "./pod-workloads.js";

/** The resources the webhook sets on containers. */
export type PodResource = QuantityKind;

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

/**
 * The quantity as the webhook writes it, and the number Kubernetes will read back from it: in the
 * unit of `original` (the container's quantity before) when the value is whole in it, else by the
 * rules of `formatQuantity` of @jobsight/schemas, the same the SDK writes manifests with.
 */
export function formatAmount(
  resource: PodResource,
  value: number,
  original?: unknown,
): { text: string; value: number } {
  const text = formatQuantityLike(original, value, resource);
  return { text, value: parseQuantity(text)! };
}

/**
 * What to write so that the container gets `target`: the decision is `planQuantityWrites` of
 * @jobsight/schemas (the SDK edits manifests by the same rule), with each write's key added.
 */
export function planWrites(
  container: Record<string, unknown>,
  resource: PodResource,
  target: number,
): ResourceWrite[] {
  const key = RESOURCE_KEYS[resource];
  const written = {
    request: section(container, "requests")?.[key],
    limit: section(container, "limits")?.[key],
  };
  return planQuantityWrites(resource, written, target).map((w) => ({ ...w, key }));
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
