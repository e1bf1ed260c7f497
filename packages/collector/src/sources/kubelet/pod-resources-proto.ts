import protobuf from "protobufjs";

/**
 * The messages of the kubelet's `v1.PodResourcesLister/List` as a protobufjs JSON descriptor, with
 * the field numbers of `k8s.io/kubelet/pkg/apis/podresources/v1/api.proto` (no npm package ships
 * it). Fields are kept in the proto's snake_case so the descriptor reads side by side with the
 * proto; what the collector does not use (memory, DRA claims) is declared anyway so a reply decodes
 * whole.
 */
export const podResourcesDescriptor = {
  nested: {
    v1: {
      nested: {
        ListPodResourcesRequest: { fields: {} },
        ListPodResourcesResponse: {
          fields: { pod_resources: { rule: "repeated", type: "PodResources", id: 1 } },
        },
        PodResources: {
          fields: {
            name: { type: "string", id: 1 },
            namespace: { type: "string", id: 2 },
            containers: { rule: "repeated", type: "ContainerResources", id: 3 },
          },
        },
        ContainerResources: {
          fields: {
            name: { type: "string", id: 1 },
            devices: { rule: "repeated", type: "ContainerDevices", id: 2 },
            cpu_ids: { rule: "repeated", type: "int64", id: 3 },
            memory: { rule: "repeated", type: "ContainerMemory", id: 4 },
            dynamic_resources: { rule: "repeated", type: "DynamicResource", id: 5 },
          },
        },
        ContainerMemory: {
          fields: {
            memory_type: { type: "string", id: 1 },
            size: { type: "uint64", id: 2 },
            topology: { type: "TopologyInfo", id: 3 },
          },
        },
        ContainerDevices: {
          fields: {
            resource_name: { type: "string", id: 1 },
            device_ids: { rule: "repeated", type: "string", id: 2 },
            topology: { type: "TopologyInfo", id: 3 },
          },
        },
        TopologyInfo: { fields: { nodes: { rule: "repeated", type: "NUMANode", id: 1 } } },
        NUMANode: { fields: { ID: { type: "int64", id: 1 } } },
        DynamicResource: {
          fields: {
            claim_name: { type: "string", id: 2 },
            claim_namespace: { type: "string", id: 3 },
            claim_resources: { rule: "repeated", type: "ClaimResource", id: 4 },
          },
        },
        ClaimResource: {
          fields: {
            cdi_devices: { rule: "repeated", type: "CDIDevice", id: 1 },
            driver_name: { type: "string", id: 2 },
            pool_name: { type: "string", id: 3 },
            device_name: { type: "string", id: 4 },
          },
        },
        CDIDevice: { fields: { name: { type: "string", id: 1 } } },
      },
    },
  },
} as const;

/** The gRPC method path of `PodResourcesLister/List`. */
export const POD_RESOURCES_LIST_PATH = "/v1.PodResourcesLister/List";

/** Devices of one resource (`nvidia.com/gpu`, `amd.com/gpu`, …) given to a container. */
export type ContainerDevices = { resourceName: string; deviceIds: string[] };

/** One container of a pod and the devices the kubelet gave it. */
export type ContainerResources = { name: string; devices: ContainerDevices[] };

/** One pod on this node, as the kubelet's `List` names it (no UID: the API does not carry it). */
export type PodResources = { name: string; namespace: string; containers: ContainerResources[] };

const root = protobuf.Root.fromJSON(podResourcesDescriptor as unknown as protobuf.INamespace);
root.resolveAll();
const listResponse = root.lookupType("v1.ListPodResourcesResponse");

type RawResponse = {
  pod_resources?: {
    name?: string;
    namespace?: string;
    containers?: { name?: string; devices?: { resource_name?: string; device_ids?: string[] }[] }[];
  }[];
};

/**
 * Decode a `ListPodResourcesResponse` into the pods, containers and devices it names; what the
 * collector does not use is dropped. Throws on bytes that are not such a message.
 *
 * @example
 * ```ts
 * const pods = decodeListPodResourcesResponse(bytes);
 * pods[0].containers[0].devices; // [{ resourceName: "nvidia.com/gpu", deviceIds: ["GPU-8f6c…"] }]
 * ```
 */
export function decodeListPodResourcesResponse(bytes: Uint8Array): PodResources[] {
  const raw = listResponse.toObject(listResponse.decode(bytes), { arrays: true }) as RawResponse;
  return (raw.pod_resources ?? []).map((p) => ({
    name: p.name ?? "",
    namespace: p.namespace ?? "",
    containers: (p.containers ?? []).map((c) => ({
      name: c.name ?? "",
      devices: (c.devices ?? []).map((d) => ({
        resourceName: d.resource_name ?? "",
        deviceIds: d.device_ids ?? [],
      })),
    })),
  }));
}
