import type { NodeEvent } from "@jobsight/schemas/light";
import { type Logger, silentLogger } from "../log/logger.js";
import type { GpuFault } from "../sources/gpu/gpu-lost.js";
import type { GpuSource } from "../sources/gpu/gpu-source.js";
import { KubernetesGpuAllocation } from "../sources/gpu/kubernetes-gpu-allocation.js";
import { shortPciBusId } from "../sources/gpu/nvidia-smi-csv.js";
import { SlurmGpuAllocation } from "../sources/gpu/slurm-gpu-allocation.js";
import { DEFAULT_POD_LOGS_DIR, podUidsByName } from "../sources/kubelet/pod-log-dirs.js";
import type { JobProcesses } from "../sources/proc-job-attribution.js";
import type { ProcReader } from "../sources/proc-reader.js";
import { assignGpus, byDevice, type GpuAssignment } from "./job-gpus.js";

/** Xids that go with a GPU dropping out: fallen off the bus, NVLink, ECC and row-remapping faults, reset needed. */
const LOSS_XIDS = new Set([79, 74, 48, 94, 95, 63, 64, 92]);

/** Options of {@link NodeGpus}. */
export type NodeGpusOptions = {
  cluster: string;
  node: string;
  smi: GpuSource;
  proc: ProcReader;
  /** The cgroup v1 mount, for SLURM jobs' device allow-lists; unset on cgroup v2. @default none */
  cgroupV1Root?: string;
  /** The kubelet's PodResources unix socket, asked for pods' GPUs. @default "/var/lib/kubelet/pod-resources/kubelet.sock" */
  podResourcesSocket?: string;
  /** The kubelet's pod log folder, whose `<namespace>_<name>_<uid>` folders tie pods to their cgroups. @default "/var/log/pods" */
  podLogsDir?: string;
  /** How long a kernel Xid on a GPU may explain nvidia-smi finding it lost. @default 3600000 */
  xidWindowMs?: number;
  /** Structured log. @default silent */
  logger?: Logger;
};

type SeenXid = { xid: NonNullable<NodeEvent["xid"]>; time: string; ms: number };

/**
 * Give a kernel Xid event that names no job the job of the process the driver named, else the
 * job holding the GPU. Returns the event.
 *
 * @example
 * ```ts
 * attributeXid(event, (pid) => pidJob.get(pid), (pci) => holders.get(pci));
 * ```
 */
export function attributeXid(
  e: NodeEvent,
  pidJob: (pid: number) => string | undefined,
  holder: (shortPci: string) => string | undefined = () => undefined,
): NodeEvent {
  if (e.jobId || e.kind !== "gpu_xid" || !e.xid) return e;
  const jobId =
    (e.xid.pid ? pidJob(e.xid.pid) : undefined) ?? holder(shortPciBusId(e.xid.pciBusId) ?? e.xid.pciBusId);
  if (jobId) e.jobId = jobId;
  return e;
}

/**
 * The node mode's GPU work in one round: GPU readings matched to jobs (the scheduler's allocation,
 * SLURM's or the kubelet's, and the processes on each GPU), kernel Xids attributed to the job
 * holding the GPU, and GPUs nvidia-smi found lost turned into `gpu_lost` events on that job, with
 * the Xid the kernel logged for the GPU.
 *
 * @example
 * ```ts
 * const gpus = new NodeGpus({ cluster: "hpc1", node: "gpu07", smi, proc });
 * const { byJob } = await gpus.assign(processesByJob, jobDirs, (pid) => pidJob.get(pid), podUids);
 * const events = gpus.events(kernelLog.drain(), (pid) => pidJob.get(pid));
 * ```
 */
export class NodeGpus {
  private readonly o: NodeGpusOptions;
  private readonly log: Logger;
  private readonly allocation: SlurmGpuAllocation;
  private readonly pods: KubernetesGpuAllocation;
  private holders = new Map<string, string>();
  private previousHolders = new Map<string, string>();
  private readonly xids = new Map<string, SeenXid>();
  // Jobs already said to run outside their allocation, per GPU, so the log says it once.
  private readonly outsideSaid = new Set<string>();

  constructor(options: NodeGpusOptions) {
    this.o = options;
    this.log = options.logger ?? silentLogger;
    this.allocation = new SlurmGpuAllocation({ proc: options.proc, cgroupV1Root: options.cgroupV1Root });
    this.pods = new KubernetesGpuAllocation({
      socketPath: options.podResourcesSocket,
      podLogsDir: options.podLogsDir,
      logger: this.log,
    });
  }

  /**
   * Match this round's GPU readings to jobs (`jobs` from /proc, `dirs`: each job's cgroup, `pods`:
   * the UIDs of the Kubernetes pods running here, whose GPUs the kubelet is asked for).
   */
  async assign(
    jobs: Map<string, JobProcesses> | undefined,
    dirs: Map<string, string>,
    pidJob: (pid: number) => string | undefined,
    pods: ReadonlySet<string> = new Set(),
  ): Promise<GpuAssignment> {
    const readings = this.o.smi.latest();
    // A GPU split into MIG instances reads as its instances only (dcgm-exporter).
    const migReadings = this.o.smi.migDevices?.() ?? [];
    const apps = readings.length > 0 ? await this.o.smi.computeApps() : [];
    const allocated = this.allocation.read(jobs, dirs);
    // Without readings there is nothing to attribute, so the kubelet is not asked.
    const byPod = readings.length + migReadings.length > 0 ? await this.pods.read(pods) : undefined;
    byPod?.forEach((refs, uid) => {
      allocated.set(uid, refs);
    });
    const result = assignGpus({
      readings,
      apps,
      proc: this.o.proc,
      pidJob,
      allocated,
      known: this.o.smi.known(),
      migReadings,
    });
    this.addPodDevices(result, pods);
    for (const o of result.outside) {
      const key = `${o.jobId}\0${o.gpu.index}`;
      if (this.outsideSaid.has(key)) continue;
      if (this.outsideSaid.size > 4096) this.outsideSaid.clear();
      this.outsideSaid.add(key);
      this.log.info("a job's process runs on a GPU outside its allocation; the GPU is counted for the job", {
        jobId: o.jobId,
        pid: o.pid,
        gpu: o.gpu.index,
      });
    }
    // One round of grace: a job whose GPU fell off may have ended before nvidia-smi noticed.
    this.previousHolders = this.holders;
    this.holders = result.jobByPci;
    return result;
  }

  /**
   * Attribute the kernel log's Xids that found no job to the job holding the GPU, and add an
   * event for each GPU nvidia-smi found lost since the last round.
   */
  events(kernel: NodeEvent[], pidJob: (pid: number) => string | undefined): NodeEvent[] {
    for (const e of kernel) {
      attributeXid(e, pidJob, (pci) => this.holder(pci));
      if (e.kind !== "gpu_xid" || !e.xid || !LOSS_XIDS.has(e.xid.code)) continue;
      const pci = shortPciBusId(e.xid.pciBusId) ?? e.xid.pciBusId;
      this.xids.set(pci, { xid: e.xid, time: e.time, ms: Date.parse(e.time) });
    }
    const out = [...kernel];
    for (const f of this.o.smi.takeFaults()) out.push(this.lostEvent(f));
    return out;
  }

  // Devices the source itself ties to a pod (dcgm-exporter's mapping): MIG instances reach their pod only this way.
  private addPodDevices(result: GpuAssignment, pods: ReadonlySet<string>): void {
    const byName = this.o.smi.podDevices?.();
    if (!byName || byName.size === 0 || pods.size === 0) return;
    const uids = podUidsByName(this.o.podLogsDir ?? DEFAULT_POD_LOGS_DIR);
    byName.forEach((devices, name) => {
      for (const uid of uids?.get(name) ?? []) {
        if (!pods.has(uid)) continue;
        const list = result.byJob.get(uid) ?? [];
        for (const d of devices) if (!list.includes(d)) list.push(d);
        list.sort(byDevice);
        result.byJob.set(uid, list);
      }
    });
  }

  /** Close the connection to the kubelet, if one was opened. */
  close(): void {
    this.pods.close();
  }

  private holder(pci: string): string | undefined {
    return this.holders.get(pci) ?? this.previousHolders.get(pci);
  }

  private lostEvent(f: GpuFault): NodeEvent {
    const pci = shortPciBusId(f.pciBusId) ?? f.pciBusId;
    const seen = this.xids.get(pci);
    const xid = seen && f.at - seen.ms <= (this.o.xidWindowMs ?? 3_600_000) ? seen : undefined;
    const exit = f.exitCode !== undefined ? ` (nvidia-smi exited with ${f.exitCode})` : "";
    const after = xid ? `; the kernel logged Xid ${xid.xid.code} for this GPU at ${xid.time}` : "";
    const base = {
      cluster: this.o.cluster,
      node: this.o.node,
      time: new Date(f.at).toISOString(),
      message: `${f.message}${exit}${after}`.slice(0, 4096),
      idempotencyKey: `gpu-lost:${pci.replace(/[^A-Za-z0-9.:-]/g, "")}:${f.at}`.slice(0, 128),
    };
    const jobId = this.holder(pci);
    // The GPU's last identity: indices shift once a GPU drops out, the PCI address does not.
    const known = this.o.smi.known().find((g) => g.pciBusId && shortPciBusId(g.pciBusId) === pci);
    const event: NodeEvent = {
      ...base,
      kind: "gpu_lost",
      gpuLost: {
        pciBusId: f.pciBusId,
        ...(known ? { index: known.index } : {}),
        ...(known?.uuid ? { uuid: known.uuid } : {}),
        reason: f.reason || "GPU is lost",
        ...(f.exitCode !== undefined && f.exitCode >= 0 && f.exitCode <= 255 ? { exitCode: f.exitCode } : {}),
      },
      // The kernel's Xid for this GPU, so the loss and its cause read as one fault.
      ...(xid ? { xid: { ...xid.xid } } : {}),
    };
    if (jobId) event.jobId = jobId;
    return event;
  }
}
