import { type Static, Type } from "@sinclair/typebox";
import { Bytes, ClusterId, IdempotencyKey, Name, Timestamp } from "../common.js";

/** The kinds of node events the collectors report. */
export const NodeEventKind = Type.Union(
  [
    Type.Literal("gpu_xid"),
    Type.Literal("gpu_lost"),
    Type.Literal("oom_kill"),
    Type.Literal("source_unavailable"),
    Type.Literal("source_limits"),
  ],
  {
    description:
      "gpu_xid: an NVIDIA Xid error from the kernel log; gpu_lost: nvidia-smi could no longer reach a GPU (\"Unable to determine the device handle … GPU is lost\"), with the kernel's Xid for it when one was logged; oom_kill: the kernel OOM killer killed a process; source_unavailable: a collector could not read a source (no GPU, no kernel-log permission); source_limits: a source the collector read a job's data from, and what that source cannot see (sent once per job and source).",
  },
);
export type NodeEventKind = Static<typeof NodeEventKind>;

/** Details of an NVIDIA Xid error (`NVRM: Xid (PCI:0000:3b:00): 79, pid=…, …`). */
export const GpuXid = Type.Object(
  {
    code: Type.Integer({ minimum: 1, maximum: 1023, description: "The Xid number, e.g. 13, 31, 48, 79." }),
    pciBusId: Name("PCI address of the GPU as printed, e.g. 0000:3b:00.", 64),
    pid: Type.Optional(Type.Integer({ minimum: 0, description: "Process id named by the driver, if any." })),
    processName: Type.Optional(Name("Process name named by the driver, if any.", 256)),
    detail: Type.Optional(Type.String({ maxLength: 2048, description: "The rest of the driver's message." })),
  },
  { additionalProperties: false, description: "An NVIDIA Xid error." },
);

/**
 * Details of a GPU nvidia-smi found lost:
 * `Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU`.
 */
export const GpuLost = Type.Object(
  {
    pciBusId: Name("PCI address of the GPU as nvidia-smi printed it, e.g. 0000:3B:00.0.", 64),
    index: Type.Optional(
      Type.Integer({ minimum: 0, description: "The GPU's index when nvidia-smi last read it." }),
    ),
    uuid: Type.Optional(Name("The GPU's UUID when nvidia-smi last read it.", 128)),
    reason: Type.String({
      minLength: 1,
      maxLength: 1024,
      description:
        "nvidia-smi's words after the address, e.g. GPU is lost.  Reboot the system to recover this GPU.",
    }),
    exitCode: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 255,
        description: "nvidia-smi's exit status (15: NVML's GPU is lost).",
      }),
    ),
  },
  { additionalProperties: false, description: "A GPU nvidia-smi could no longer reach." },
);

/** Details of a kernel OOM kill (`Out of memory: Killed process 1234 (python) total-vm:… anon-rss:…`). */
export const OomKill = Type.Object(
  {
    pid: Type.Integer({ minimum: 1, description: "The killed process." }),
    processName: Name("The killed process's command name.", 256),
    memoryCgroup: Type.Optional(
      Name("The memory cgroup whose limit was hit (oom_memcg=…), if printed.", 4096),
    ),
    taskCgroup: Type.Optional(Name("The killed task's cgroup (task_memcg=…), if printed.", 4096)),
    totalVmBytes: Type.Optional(Bytes("total-vm of the victim")),
    anonRssBytes: Type.Optional(Bytes("anon-rss of the victim")),
    fileRssBytes: Type.Optional(Bytes("file-rss of the victim")),
    shmemRssBytes: Type.Optional(Bytes("shmem-rss of the victim")),
    constraint: Type.Optional(Name("CONSTRAINT_MEMCG, CONSTRAINT_NONE, …", 64)),
  },
  { additionalProperties: false, description: "A kernel OOM kill." },
);

/**
 * What a source the collector read a job's data from cannot observe (`source_limits` events): the
 * source itself is the event's `source`, e.g. `dcgm-exporter` cannot see `processes on each GPU`.
 */
export const SourceLimits = Type.Object(
  {
    reads: Type.Union([Type.Literal("gpu"), Type.Literal("usage")], {
      description:
        "What the collector read from the source for the job: gpu (its GPU readings) or usage (its memory, CPU, I/O and pids).",
    }),
    cannotSee: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      minItems: 1,
      maxItems: 16,
      description:
        "What the source cannot observe, each in words a diagnosis can name, e.g. processes on each GPU.",
    }),
  },
  { additionalProperties: false, description: "What a source cannot see." },
);

/**
 * Something that happened on a node, read from the kernel log, from nvidia-smi or from the collector
 * itself. A `gpu_lost` event carries `gpuLost`, and `xid` when the kernel logged an Xid for the
 * same GPU shortly before; the kernel's own Xid line is a `gpu_xid` event of its own. A
 * `source_limits` event carries `source` and `sourceLimits`, attributed to the job it was read for.
 *
 * @example
 * ```ts
 * const xid: NodeEvent = {
 *   cluster: "hpc1", node: "gpu07", time: "2026-12-01T10:00:00Z", kind: "gpu_xid", jobId: "4242",
 *   xid: { code: 79, pciBusId: "0000:3b:00" }, message: "NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.",
 * };
 * ```
 */
export const NodeEvent = Type.Object(
  {
    cluster: ClusterId,
    node: Name("Node (host) name.", 256),
    time: Timestamp,
    kind: NodeEventKind,
    jobId: Type.Optional(Name("The job the event was attributed to, when known.", 256)),
    xid: Type.Optional(GpuXid),
    gpuLost: Type.Optional(GpuLost),
    oomKill: Type.Optional(OomKill),
    source: Type.Optional(
      Name(
        "For source_unavailable: the source that could not be read (gpu, kmsg, cgroup, proc, cadvisor, node_exporter); for source_limits: the source read (nvidia-smi, dcgm-exporter, rocm-smi, cadvisor, node_exporter, cgroup-v1, proc).",
        64,
      ),
    ),
    sourceLimits: Type.Optional(SourceLimits),
    message: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: "The raw log line or the collector's message.",
    }),
    idempotencyKey: Type.Optional(IdempotencyKey),
  },
  {
    $id: "NodeEvent",
    additionalProperties: false,
    description: "An event on a node: GPU Xid, lost GPU, OOM kill, unavailable source, a source's limits.",
  },
);
export type NodeEvent = Static<typeof NodeEvent>;
