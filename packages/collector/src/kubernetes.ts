// Kubernetes cluster mode as a library: a separate entry point, so that importing the collector
// does not load @kubernetes/client-node (about 75 MB) nor need its type declarations.

export { parseQuantity } from "@jobsight/schemas/light";
export { kubeConfigFor } from "./config/kube-config.js";
export type {
  KubernetesClusterOptions,
  KubernetesClusterStats,
} from "./modes/kubernetes/kubernetes-cluster.js";
export { KubernetesCluster } from "./modes/kubernetes/kubernetes-cluster.js";
export type { EventMeaning } from "./modes/kubernetes/kubernetes-events.js";
export { meaningOfEvent } from "./modes/kubernetes/kubernetes-events.js";
export type { PodAmounts } from "./modes/kubernetes/kubernetes-pod-spec.js";
export { jobSpecFromPod, podRequests } from "./modes/kubernetes/kubernetes-pod-spec.js";
export type { PodHints, PodRecordOptions } from "./modes/kubernetes/kubernetes-records.js";
export { podOutcome, previousRunSteps, recordFromPod } from "./modes/kubernetes/kubernetes-records.js";
export type { PodResourcesClientOptions } from "./sources/kubelet/pod-resources-client.js";
export { DEFAULT_POD_RESOURCES_SOCKET, PodResourcesClient } from "./sources/kubelet/pod-resources-client.js";
export type {
  ContainerDevices,
  ContainerResources,
  PodResources,
} from "./sources/kubelet/pod-resources-proto.js";
