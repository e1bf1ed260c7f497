import { type Logger, silentLogger } from "../../log/logger.js";
import { DEFAULT_POD_LOGS_DIR, podUidsByName } from "../kubelet/pod-log-dirs.js";
import type { PodResourcesClient } from "../kubelet/pod-resources-client.js";
import type { ContainerDevices, PodResources } from "../kubelet/pod-resources-proto.js";
import { migRefKey, parseMigRef } from "./mig-ref.js";
import type { GpuRef } from "./slurm-gpu-allocation.js";

/** Options of {@link KubernetesGpuAllocation}. */
export type KubernetesGpuAllocationOptions = {
  /** The kubelet's PodResources unix socket. @default "/var/lib/kubelet/pod-resources/kubelet.sock" */
  socketPath?: string;
  /** The kubelet's pod log folder, whose `<namespace>_<name>_<uid>` folders tie pods to their cgroups. @default "/var/log/pods" */
  podLogsDir?: string;
  /** Time limit of one `List` call (the kubelet answers from memory). @default 2000 */
  timeoutMs?: number;
  /** Structured log. @default silent */
  logger?: Logger;
};

// NVIDIA's device plugin: UUIDs (`GPU-…`, `GPU-…::<n>` when time-sliced) or, with its `index`
// strategy, NVML indices; MIG instances (`nvidia.com/mig-1g.5gb`, or `nvidia.com/gpu` under the
// `single` strategy) by MIG UUID, and on GKE as `nvidia<minor>/gi<id>`.
const NVIDIA = /^nvidia\.com\/(?:gpu(?:\.[a-z0-9-]+)?|mig-[a-z0-9.+-]+)$/;
const AMD = /^amd\.com\/gpu$/;
const PCI = /^(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$/;

/**
 * The GPUs among a container's devices as the kubelet lists them: `nvidia.com/gpu` by UUID (or
 * index), MIG instances (`nvidia.com/mig-<profile>`) by MIG UUID, `amd.com/gpu` by PCI address.
 * Other resources are left out.
 *
 * @example
 * ```ts
 * podGpuRefs([{ resourceName: "nvidia.com/gpu", deviceIds: ["GPU-8f6c…", "GPU-1b2c…::3"] }]);
 * // [{ uuid: "GPU-8f6c…" }, { uuid: "GPU-1b2c…" }]
 * ```
 */
export function podGpuRefs(devices: ContainerDevices[]): GpuRef[] {
  const out: GpuRef[] = [];
  const seen = new Set<string>();
  const add = (key: string, ref: GpuRef) => {
    if (seen.has(key)) return;
    seen.add(key);
    out.push(ref);
  };
  for (const d of devices) {
    const nvidia = NVIDIA.test(d.resourceName);
    if (!nvidia && !AMD.test(d.resourceName)) continue;
    for (const raw of d.deviceIds) {
      const id = raw.trim().replace(/::\d+$/, "");
      const mig = nvidia ? parseMigRef(id, { gke: true }) : undefined;
      if (mig) add(`mig:${migRefKey(mig)}`, { mig });
      else if (nvidia && /^GPU-[0-9A-Fa-f-]{4,}$/.test(id)) add(id, { uuid: id });
      else if (nvidia && /^\d{1,3}$/.test(id)) add(`#${id}`, { index: Number(id) });
      else if (!nvidia && PCI.test(id)) add(id.toLowerCase(), { pciBusId: id });
    }
  }
  return out;
}

/**
 * Which GPUs the kubelet gave each pod on this node, whether or not anything runs on them, from
 * its PodResources API (`List`), keyed by pod UID (the job id of a pod's samples): the API names
 * pods by namespace and name, and the kubelet's pod log folders say which UID has that name. When
 * the socket is missing or the call fails, `read` resolves to undefined (the caller keeps to the
 * processes on the GPUs) and the log says so once, and once more when the kubelet answers again.
 * It never rejects; the gRPC client is loaded only when a node runs pods.
 *
 * @example
 * ```ts
 * const allocation = new KubernetesGpuAllocation({ logger });
 * (await allocation.read(new Set([podUid])))?.get(podUid); // [{ uuid: "GPU-8f6c…" }]
 * ```
 */
export class KubernetesGpuAllocation {
  private readonly o: KubernetesGpuAllocationOptions;
  private readonly log: Logger;
  private client: PodResourcesClient | undefined;
  private failing = false;
  private logDirsMissing = false;
  // Pods said to be unmatched, so the log names each once.
  private readonly unmatchedSaid = new Set<string>();

  constructor(options: KubernetesGpuAllocationOptions = {}) {
    this.o = options;
    this.log = options.logger ?? silentLogger;
  }

  /** The GPUs of each of `pods` (UIDs of the pods running here) that holds any; undefined when the kubelet cannot say. */
  async read(pods: ReadonlySet<string>): Promise<Map<string, GpuRef[]> | undefined> {
    if (pods.size === 0) return new Map();
    let listed: PodResources[];
    try {
      if (!this.client) {
        const { PodResourcesClient } = await import("../kubelet/pod-resources-client.js");
        this.client = new PodResourcesClient({ socketPath: this.o.socketPath, timeoutMs: this.o.timeoutMs });
      }
      listed = await this.client.list();
    } catch (error) {
      if (!this.failing)
        this.log.warn("cannot ask the kubelet which GPUs pods hold; pods get the GPUs their processes use", {
          error,
          socket: this.client?.socketPath ?? this.o.socketPath,
        });
      this.failing = true;
      return undefined;
    }
    if (this.failing)
      this.log.info("the kubelet says again which GPUs pods hold", { socket: this.client.socketPath });
    this.failing = false;
    return this.byUid(listed, pods);
  }

  /** Close the connection to the kubelet. */
  close(): void {
    this.client?.close();
  }

  private byUid(listed: PodResources[], pods: ReadonlySet<string>): Map<string, GpuRef[]> | undefined {
    const out = new Map<string, GpuRef[]>();
    const holding = listed.flatMap((p) => {
      const refs = podGpuRefs(p.containers.flatMap((c) => c.devices));
      return refs.length > 0 ? [{ key: `${p.namespace}/${p.name}`, refs }] : [];
    });
    if (holding.length === 0) return out;
    const dir = this.o.podLogsDir ?? DEFAULT_POD_LOGS_DIR;
    const uids = podUidsByName(dir);
    if (!uids) {
      if (!this.logDirsMissing)
        this.log.warn("cannot read the kubelet's pod log folder to match pods to their cgroups", { dir });
      this.logDirsMissing = true;
      return undefined;
    }
    this.logDirsMissing = false;
    for (const { key, refs } of holding) {
      const running = (uids.get(key) ?? []).filter((uid) => pods.has(uid));
      if (running.length === 1) {
        out.set(running[0], refs);
        continue;
      }
      if (this.unmatchedSaid.has(key)) continue;
      if (this.unmatchedSaid.size > 4096) this.unmatchedSaid.clear();
      this.unmatchedSaid.add(key);
      // No UID yet is a pod starting or ending between the two reads; two is worth a look.
      this.log[running.length === 0 ? "debug" : "info"](
        "a pod holding GPUs matches no single running pod cgroup; its GPUs go by its processes",
        { pod: key, uids: running },
      );
    }
    return out;
  }
}
