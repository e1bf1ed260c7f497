import { readFileSync } from "node:fs";
// The collector's own generator of cgroup v2 directories in the kernel's formats (its unit tests
// use it too): the same files a node with SLURM's cgroup/v2 plugin would have.
import { CgroupTree, writeCgroupV2Dir } from "../../../../collector/src/test-support/cgroup-tree.js";

/** A real process's memory and CPU as /proc says them. */
export type ProcFigures = {
  totalVmKb: number;
  anonKb: number;
  fileKb: number;
  shmemKb: number;
  /** utime + stime, in seconds. */
  cpuSeconds: number;
  userSeconds: number;
};

const TICK = 100;

/** Reads `/proc/<pid>/status` and `/proc/<pid>/stat`; undefined once the process is gone. */
export function procFigures(pid: number): ProcFigures | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of proc(5), counted from the state (field 3).
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return {
      totalVmKb: kb("VmSize"),
      anonKb: kb("RssAnon"),
      fileKb: kb("RssFile"),
      shmemKb: kb("RssShmem"),
      cpuSeconds: (utime + stime) / TICK,
      userSeconds: utime / TICK,
    };
  } catch {
    return undefined;
  }
}

/** One job's generated cgroup, following its real process. */
export type MirroredJob = {
  readonly dir: string;
  /** The latest figures read from /proc (kept after the process is gone). */
  last(): ProcFigures | undefined;
  /** The memory controller killed a process: `memory.events` counts it from now on. */
  countOomKill(): void;
  /** Stop following and delete the cgroup, as the kernel does when SLURM removes it. */
  remove(): void;
};

/**
 * A cgroup v2 tree (`<root>/system.slice/slurmstepd.scope/job_<id>`) for jobs of a cluster that has
 * no cgroups: each job's directory is rewritten every `everyMs` from its real process's /proc
 * figures (memory.current = anon + file + shmem, memory.peak its high-water mark, memory.stat,
 * cpu.stat, pids.current), with the limit SLURM's cgroup plugin would set (`memory.max` = --mem).
 * Files are rewritten in place, as the kernel updates them, because the collector keeps them open.
 *
 * @example
 * const mirror = new CgroupMirror(root);
 * const job = mirror.follow("42", pid, 256 * 2 ** 20);
 */
export class CgroupMirror {
  private readonly tree: CgroupTree;
  readonly root: string;

  constructor(root: string) {
    this.tree = new CgroupTree(root);
    this.root = root;
  }

  follow(jobId: string, pid: number, limitBytes: number, everyMs = 250): MirroredJob {
    const dir = this.tree.slurmJob(jobId, { memoryMax: limitBytes, memoryPeak: 0, procs: [pid] });
    let last: ProcFigures | undefined;
    let peak = 0;
    let oomKills = 0;
    let removed = false;
    const write = () => {
      if (removed) return;
      const now = procFigures(pid);
      if (now) last = now;
      const f = now ?? { ...(last ?? EMPTY), anonKb: 0, fileKb: 0, shmemKb: 0 };
      const current = (f.anonKb + f.fileKb + f.shmemKb) * 1024;
      peak = Math.max(peak, current);
      writeCgroupV2Dir(dir, {
        memoryCurrent: current,
        memoryPeak: peak,
        memoryMax: limitBytes,
        anon: f.anonKb * 1024,
        file: f.fileKb * 1024,
        shmem: f.shmemKb * 1024,
        oom: oomKills,
        oomKill: oomKills,
        usageUsec: Math.round(f.cpuSeconds * 1e6),
        userUsec: Math.round(f.userSeconds * 1e6),
        systemUsec: Math.round((f.cpuSeconds - f.userSeconds) * 1e6),
        pids: now ? 1 : 0,
        procs: now ? [pid] : [],
        io: [{ device: "259:0", rbytes: 1_459_200, wbytes: 4096, rios: 192, wios: 1 }],
      });
    };
    write();
    const timer = setInterval(write, everyMs);
    return {
      dir,
      last: () => last,
      countOomKill() {
        oomKills++;
        write();
      },
      remove: () => {
        clearInterval(timer);
        removed = true;
        this.tree.remove(dir);
      },
    };
  }

  cleanup(): void {
    this.tree.cleanup();
  }
}

const EMPTY: ProcFigures = { totalVmKb: 0, anonKb: 0, fileKb: 0, shmemKb: 0, cpuSeconds: 0, userSeconds: 0 };
