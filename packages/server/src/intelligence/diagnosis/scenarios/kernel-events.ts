import type { NodeEvent } from "@jobsight/schemas";

const KIB = 1024;

/** A memory-cgroup OOM kill as the collector reads it from the kernel log (kernel 5.x+ format). */
export function oomKillEvent(e: {
  cluster: string;
  node: string;
  time: string;
  jobId?: string;
  pid: number;
  name: string;
  totalVmKb: number;
  anonRssKb: number;
  fileRssKb: number;
  shmemRssKb: number;
  uid: number;
  pgtablesKb: number;
  memcg: string;
  taskMemcg: string;
}): NodeEvent {
  return {
    cluster: e.cluster,
    node: e.node,
    time: e.time,
    kind: "oom_kill",
    ...(e.jobId ? { jobId: e.jobId } : {}),
    oomKill: {
      pid: e.pid,
      processName: e.name,
      memoryCgroup: e.memcg,
      taskCgroup: e.taskMemcg,
      totalVmBytes: e.totalVmKb * KIB,
      anonRssBytes: e.anonRssKb * KIB,
      fileRssBytes: e.fileRssKb * KIB,
      shmemRssBytes: e.shmemRssKb * KIB,
      constraint: "CONSTRAINT_MEMCG",
    },
    message: `Memory cgroup out of memory: Killed process ${e.pid} (${e.name}) total-vm:${e.totalVmKb}kB, anon-rss:${e.anonRssKb}kB, file-rss:${e.fileRssKb}kB, shmem-rss:${e.shmemRssKb}kB, UID:${e.uid} pgtables:${e.pgtablesKb}kB oom_score_adj:0`,
  };
}

/** An NVIDIA Xid line as the driver prints it: `NVRM: Xid (PCI:0000:3b:00): 13, pid=…, name=…, …`. */
export function xidEvent(e: {
  cluster: string;
  node: string;
  time: string;
  jobId?: string;
  /** As the kernel prints it, e.g. `0000:3b:00`. */
  pci: string;
  code: number;
  pid?: number;
  name?: string;
  detail: string;
}): NodeEvent {
  const who = e.pid !== undefined ? `pid=${e.pid}, name=${e.name}` : "pid='<unknown>', name=<unknown>";
  return {
    cluster: e.cluster,
    node: e.node,
    time: e.time,
    kind: "gpu_xid",
    ...(e.jobId ? { jobId: e.jobId } : {}),
    xid: {
      code: e.code,
      pciBusId: e.pci,
      ...(e.pid !== undefined ? { pid: e.pid, processName: e.name } : {}),
      detail: e.detail,
    },
    message: `NVRM: Xid (PCI:${e.pci}): ${e.code}, ${who}, ${e.detail}`,
  };
}

/** The collector's note that it could not read a source on a node. */
export function unavailable(e: {
  cluster: string;
  node: string;
  time: string;
  source: string;
  message: string;
}): NodeEvent {
  return {
    cluster: e.cluster,
    node: e.node,
    time: e.time,
    kind: "source_unavailable",
    source: e.source,
    message: e.message,
  };
}

/**
 * A GPU nvidia-smi found lost, as the collector's node mode reports it: nvidia-smi's line, its exit
 * status, and the kernel's Xid for the same GPU when one was logged shortly before.
 */
export function gpuLostEvent(e: {
  cluster: string;
  node: string;
  time: string;
  jobId?: string;
  /** As nvidia-smi prints it, e.g. `0000:47:00.0`. */
  pci: string;
  index?: number;
  uuid?: string;
  exitCode?: number;
  /** The kernel's Xid for the GPU: its code, the address as the kernel prints it, and when. */
  xid?: { code: number; pci: string; time: string; detail: string };
}): NodeEvent {
  const reason = "GPU is lost.  Reboot the system to recover this GPU";
  const line = `Unable to determine the device handle for GPU ${e.pci}: ${reason}`;
  const exit = e.exitCode !== undefined ? ` (nvidia-smi exited with ${e.exitCode})` : "";
  const after = e.xid ? `; the kernel logged Xid ${e.xid.code} for this GPU at ${e.xid.time}` : "";
  return {
    cluster: e.cluster,
    node: e.node,
    time: e.time,
    kind: "gpu_lost",
    ...(e.jobId ? { jobId: e.jobId } : {}),
    gpuLost: {
      pciBusId: e.pci,
      ...(e.index !== undefined ? { index: e.index } : {}),
      ...(e.uuid ? { uuid: e.uuid } : {}),
      reason,
      ...(e.exitCode !== undefined ? { exitCode: e.exitCode } : {}),
    },
    ...(e.xid ? { xid: { code: e.xid.code, pciBusId: e.xid.pci, detail: e.xid.detail } } : {}),
    message: `${line}${exit}${after}`,
  };
}
