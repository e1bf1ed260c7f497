import { parseQuantity } from "@jobsight/schemas";
import { isMap, isScalar, type Scalar, type YAMLMap } from "yaml";

/** The resource keys Jobsight reads and writes in `resources.requests/limits`. */
export const resourceKeys = { memory: "memory", cores: "cpu", gpus: "nvidia.com/gpu" } as const;

/** One resource of one container: the request and limit nodes and their values. */
export type ContainerResource = {
  requestNode?: Scalar;
  limitNode?: Scalar;
  request?: number;
  limit?: number;
  /** The request if set, else the limit (Kubernetes defaults a missing request to the limit). */
  effective?: number;
  /** Texts that are not quantities (templated values such as `{{inputs.parameters.mem}}`). */
  invalid: string[];
};

function scalarIn(map: unknown, key: string): Scalar | undefined {
  const node = isMap(map) ? map.get(key, true) : undefined;
  return isScalar(node) && node.value !== null ? node : undefined;
}

/** Read one resource of a container. GPUs are read from limits first, where Kubernetes requires them. */
export function readResource(container: YAMLMap, key: string): ContainerResource {
  const resources = container.get("resources", true);
  const requests = isMap(resources) ? resources.get("requests", true) : undefined;
  const limits = isMap(resources) ? resources.get("limits", true) : undefined;
  const requestNode = scalarIn(requests, key);
  const limitNode = scalarIn(limits, key);
  const invalid: string[] = [];
  const value = (node: Scalar | undefined) => {
    if (!node) return undefined;
    const parsed = parseQuantity(node.value as string | number);
    if (parsed === undefined) invalid.push(`${key}: ${String(node.value)}`);
    return parsed;
  };
  const request = value(requestNode);
  const limit = value(limitNode);
  const effective = key === resourceKeys.gpus ? (limit ?? request) : (request ?? limit);
  return { requestNode, limitNode, request, limit, effective, invalid };
}
