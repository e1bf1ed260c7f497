import type { V1ContainerStatus, V1Pod } from "@kubernetes/client-node";

/** At most this many container ids per record (the schema's bound on `JobRecord.containerIds`). */
export const MAX_CONTAINER_IDS = 256;

// `<runtime>://<id>`: containerd, cri-o and docker all give a hex id (64 digits) after the scheme.
const RUNTIME_ID = /^[a-z0-9-]+:\/\/([0-9a-f]{12,128})$/;

/**
 * The runtime id in a container status's `containerID` (`containerd://<hex>`, `cri-o://<hex>`,
 * `docker://<hex>`), lower-case and without the scheme; `undefined` when it is absent or not hex.
 *
 * @example
 * ```ts
 * runtimeContainerId("containerd://9f86d081884c7d65…"); // "9f86d081884c7d65…"
 * ```
 */
export function runtimeContainerId(containerID: string | undefined): string | undefined {
  return containerID ? RUNTIME_ID.exec(containerID.trim().toLowerCase())?.[1] : undefined;
}

/**
 * The runtime ids of a pod's containers, init containers and ephemeral containers, the current
 * run's and the previous one's (a restarted container's metrics may still arrive), in status
 * order, without duplicates, at most {@link MAX_CONTAINER_IDS}. The OTLP receiver gives a reading
 * naming only `container.id` to the job whose record lists it.
 *
 * @example
 * ```ts
 * podContainerIds(pod); // ["4572726f72…", "73696d7369…"]
 * ```
 */
export function podContainerIds(pod: V1Pod): string[] {
  const status = pod.status;
  const all: V1ContainerStatus[] = [
    ...(status?.initContainerStatuses ?? []),
    ...(status?.containerStatuses ?? []),
    ...(status?.ephemeralContainerStatuses ?? []),
  ];
  const ids = new Set<string>();
  for (const s of all) {
    for (const raw of [s.containerID, s.lastState?.terminated?.containerID]) {
      const id = runtimeContainerId(raw);
      if (id && ids.size < MAX_CONTAINER_IDS) ids.add(id);
    }
  }
  return [...ids];
}
