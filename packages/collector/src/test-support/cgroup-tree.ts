import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Values written into a generated cgroup; every field has a realistic default. */
export type CgroupValues = {
  memoryCurrent?: number;
  /** `undefined` leaves `memory.peak` out (kernels before 5.19). */
  memoryPeak?: number | null;
  /** `null` writes `max`. */
  memoryMax?: number | null;
  anon?: number;
  file?: number;
  shmem?: number;
  swapCurrent?: number;
  oom?: number;
  oomKill?: number;
  usageUsec?: number;
  userUsec?: number;
  systemUsec?: number;
  nrPeriods?: number;
  nrThrottled?: number;
  throttledUsec?: number;
  /** `null` writes `max 100000`; a number of cores writes `<cores*100000> 100000`. */
  cpuMaxCores?: number | null;
  io?: { device: string; rbytes: number; wbytes: number; rios: number; wios: number }[];
  pids?: number;
  cpuSomeAvg10?: number;
  memorySomeAvg10?: number;
  memoryFullAvg10?: number;
  ioSomeAvg10?: number;
  ioFullAvg10?: number;
  procs?: number[];
};

const psi = (someAvg10: number, fullAvg10: number) =>
  `some avg10=${someAvg10.toFixed(2)} avg60=${(someAvg10 / 2).toFixed(2)} avg300=${(someAvg10 / 4).toFixed(2)} total=${Math.round(someAvg10 * 1e5)}\n` +
  `full avg10=${fullAvg10.toFixed(2)} avg60=${(fullAvg10 / 2).toFixed(2)} avg300=${(fullAvg10 / 4).toFixed(2)} total=${Math.round(fullAvg10 * 1e5)}\n`;

/** `memory.stat` of a 6.x kernel, keys in the kernel's order. */
export function memoryStatV2(anon: number, file: number, shmem: number): string {
  const keys: [string, number][] = [
    ["anon", anon],
    ["file", file],
    ["kernel", 1_572_864],
    ["kernel_stack", 98_304],
    ["pagetables", 438_272],
    ["sec_pagetables", 0],
    ["percpu", 5_760],
    ["sock", 0],
    ["vmalloc", 8_192],
    ["shmem", shmem],
    ["zswap", 0],
    ["zswapped", 0],
    ["file_mapped", Math.floor(file / 4)],
    ["file_dirty", 4_096],
    ["file_writeback", 0],
    ["swapcached", 0],
    ["anon_thp", 0],
    ["file_thp", 0],
    ["shmem_thp", 0],
    ["inactive_anon", Math.floor(anon / 2)],
    ["active_anon", anon - Math.floor(anon / 2) + shmem],
    ["inactive_file", Math.floor(file / 2)],
    ["active_file", file - Math.floor(file / 2)],
    ["unevictable", 0],
    ["slab_reclaimable", 712_416],
    ["slab_unreclaimable", 254_216],
    ["slab", 966_632],
    ["workingset_refault_anon", 0],
    ["workingset_refault_file", 12],
    ["workingset_activate_anon", 0],
    ["workingset_activate_file", 3],
    ["workingset_restore_anon", 0],
    ["workingset_restore_file", 0],
    ["workingset_nodereclaim", 0],
    ["pgscan", 0],
    ["pgsteal", 0],
    ["pgscan_kswapd", 0],
    ["pgscan_direct", 0],
    ["pgsteal_kswapd", 0],
    ["pgsteal_direct", 0],
    ["pgfault", 182_311],
    ["pgmajfault", 41],
    ["pgrefill", 0],
    ["pgactivate", 2_210],
    ["pgdeactivate", 0],
    ["pglazyfree", 0],
    ["pglazyfreed", 0],
    ["zswpin", 0],
    ["zswpout", 0],
    ["thp_fault_alloc", 0],
    ["thp_collapse_alloc", 0],
  ];
  return keys.map(([k, v]) => `${k} ${v}\n`).join("");
}

/** Write a cgroup v2 directory with every interface file the collector reads, in the kernel's formats. */
export function writeCgroupV2Dir(dir: string, v: CgroupValues = {}): void {
  mkdirSync(dir, { recursive: true });
  const anon = v.anon ?? 734_003_200;
  const file = v.file ?? 104_857_600;
  const shmem = v.shmem ?? 0;
  const current = v.memoryCurrent ?? anon + file + shmem + 3_145_728;
  const files: Record<string, string> = {
    "cgroup.controllers": "cpuset cpu io memory pids\n",
    "cgroup.procs": (v.procs ?? []).map((p) => `${p}\n`).join(""),
    "cgroup.events": `populated ${v.procs?.length === 0 ? 0 : 1}\nfrozen 0\n`,
    "memory.current": `${current}\n`,
    "memory.max": v.memoryMax === null || v.memoryMax === undefined ? "max\n" : `${v.memoryMax}\n`,
    "memory.stat": memoryStatV2(anon, file, shmem),
    "memory.swap.current": `${v.swapCurrent ?? 0}\n`,
    "memory.events": `low 0\nhigh 0\nmax ${v.oom ?? 0}\noom ${v.oom ?? 0}\noom_kill ${v.oomKill ?? 0}\noom_group_kill 0\n`,
    "memory.pressure": psi(v.memorySomeAvg10 ?? 0, v.memoryFullAvg10 ?? 0),
    "cpu.stat":
      `usage_usec ${v.usageUsec ?? 12_345_678}\nuser_usec ${v.userUsec ?? 11_000_000}\nsystem_usec ${v.systemUsec ?? 1_345_678}\n` +
      `nr_periods ${v.nrPeriods ?? 0}\nnr_throttled ${v.nrThrottled ?? 0}\nthrottled_usec ${v.throttledUsec ?? 0}\nnr_bursts 0\nburst_usec 0\n`,
    "cpu.max":
      v.cpuMaxCores === null || v.cpuMaxCores === undefined
        ? "max 100000\n"
        : `${Math.round(v.cpuMaxCores * 100_000)} 100000\n`,
    "cpu.pressure": psi(v.cpuSomeAvg10 ?? 0, 0),
    "io.stat": (v.io ?? [{ device: "259:0", rbytes: 1_459_200, wbytes: 314_773_504, rios: 192, wios: 353 }])
      .map(
        (d) =>
          `${d.device} rbytes=${d.rbytes} wbytes=${d.wbytes} rios=${d.rios} wios=${d.wios} dbytes=0 dios=0\n`,
      )
      .join(""),
    "io.pressure": psi(v.ioSomeAvg10 ?? 0, v.ioFullAvg10 ?? 0),
    "pids.current": `${v.pids ?? 3}\n`,
    "pids.max": "max\n",
  };
  if (v.memoryPeak !== undefined) files["memory.peak"] = `${v.memoryPeak ?? current}\n`;
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
}

/** Options of a generated SLURM job. */
export type SlurmJobOptions = CgroupValues & {
  /** Steps to create (`batch`, `extern`, `interactive`, `0`, …). @default ["extern", "batch"] */
  steps?: string[];
  /** Multi-slurmd node-name prefix of the scope. */
  nodePrefix?: string;
};

/** Options of a generated Kubernetes pod. */
export type PodOptions = CgroupValues & {
  qos?: "guaranteed" | "burstable" | "besteffort";
  runtime?: "containerd" | "crio";
  containers?: string[];
  /** Use the cgroupfs driver layout (`kubepods/burstable/pod<uid>`) instead of systemd slices. */
  cgroupfs?: boolean;
};

/**
 * Builds cgroup trees in a temporary folder, laid out as SLURM's cgroup/v2 plugin and the kubelet
 * lay them out, with every file in the kernel's own format. Tests and the benchmark point the
 * collector's configurable cgroup root at it.
 *
 * @example
 * ```ts
 * const tree = new CgroupTree();
 * const dir = tree.slurmJob("42", { memoryCurrent: 2 ** 30, steps: ["batch", "0"] });
 * // …collect from tree.root…
 * tree.cleanup();
 * ```
 */
export class CgroupTree {
  readonly root: string;

  constructor(root?: string) {
    this.root = root ?? mkdtempSync(join(tmpdir(), "jobsight-cgroup-"));
    writeFileSync(join(this.root, "cgroup.controllers"), "cpuset cpu io memory hugetlb pids rdma misc\n");
    mkdirSync(join(this.root, "system.slice", "slurmd.service"), { recursive: true });
  }

  /** Create a SLURM job under `system.slice/[<node>_]slurmstepd.scope/job_<id>`; returns its directory. */
  slurmJob(jobId: string, options: SlurmJobOptions = {}): string {
    const scope = options.nodePrefix ? `${options.nodePrefix}_slurmstepd.scope` : "slurmstepd.scope";
    mkdirSync(join(this.root, "system.slice", scope, "system"), { recursive: true });
    const dir = join(this.root, "system.slice", scope, `job_${jobId}`);
    writeCgroupV2Dir(dir, options);
    for (const step of options.steps ?? ["extern", "batch"]) {
      const stepDir = join(dir, `step_${step}`);
      writeCgroupV2Dir(stepDir, { ...options, memoryCurrent: undefined, procs: [] });
      writeCgroupV2Dir(join(stepDir, "slurm"), { procs: [] });
      writeCgroupV2Dir(join(stepDir, "user", "task_0"), { procs: options.procs ?? [] });
    }
    return dir;
  }

  /** Create a Kubernetes pod with its containers; returns the pod's directory. */
  pod(uid: string, options: PodOptions = {}): string {
    const qos = options.qos ?? "burstable";
    let dir: string;
    if (options.cgroupfs) {
      dir =
        qos === "guaranteed"
          ? join(this.root, "kubepods", `pod${uid}`)
          : join(this.root, "kubepods", qos, `pod${uid}`);
    } else {
      const slice = uid.replace(/-/g, "_");
      dir =
        qos === "guaranteed"
          ? join(this.root, "kubepods.slice", `kubepods-pod${slice}.slice`)
          : join(this.root, "kubepods.slice", `kubepods-${qos}.slice`, `kubepods-${qos}-pod${slice}.slice`);
    }
    writeCgroupV2Dir(dir, options);
    const prefix = options.runtime === "crio" ? "crio" : "cri-containerd";
    for (const id of options.containers ?? []) {
      writeCgroupV2Dir(join(dir, options.cgroupfs ? id : `${prefix}-${id}.scope`), {
        ...options,
        procs: options.procs ?? [],
      });
      if (options.runtime === "crio" && !options.cgroupfs)
        writeCgroupV2Dir(join(dir, `crio-conmon-${id}.scope`), {});
    }
    return dir;
  }

  /** Remove a directory as the kernel does when a cgroup is deleted (the job ended). */
  remove(dir: string): void {
    rmSync(dir, { recursive: true, force: true });
  }

  /** Delete the whole generated tree. */
  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
