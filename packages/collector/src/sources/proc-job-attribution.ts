import { jobFromProcCgroup } from "./cgroup-job-path.js";
import type { ProcReader, ProcStat } from "./proc-reader.js";
import type { ProcessSnapshot } from "./usage-parts.js";

/** The processes of one job found in /proc. */
export type JobProcesses = {
  scheduler: "slurm" | "kubernetes";
  jobId: string;
  processes: ProcStat[];
};

/** Options of {@link ProcJobAttribution}. */
export type ProcJobAttributionOptions = {
  /** Where to read processes from. */
  proc: ProcReader;
  /** Attribute through `/proc/<pid>/cgroup` (nodes with cgroups). @default true */
  byCgroup?: boolean;
  /** Attribute through a `slurmstepd: [<job>.<step>]` ancestor. @default true */
  bySlurmstepd?: boolean;
  /** Attribute through `SLURM_JOB_ID` in `/proc/<pid>/environ`. @default true */
  byEnviron?: boolean;
};

/** `slurmstepd: [42.batch]`, `slurmstepd: [42.extern]`, `slurmstepd: [42.0]` */
const stepdTitle = /slurmstepd: \[([^.\]\s]+)\.([^\]\s]+)\]/;

type Owner = { scheduler: "slurm" | "kubernetes"; jobId: string } | null;
type Cached = { starttime: number; owner: Owner; round: number };

/**
 * Attributes the node's processes to jobs: through their cgroup where the node has cgroups, else
 * (SLURM without cgroups: `proctrack/linuxproc`) through a `slurmstepd` ancestor or the
 * `SLURM_JOB_ID` in the process's environment. A process keeps its owner for its lifetime, so the
 * answer is cached per (pid, start time) and the files are read once per process, not per round.
 * `slurmstepd` processes themselves are not counted, as SLURM's own accounting does not count them.
 *
 * @example
 * ```ts
 * const byJob = new ProcJobAttribution({ proc: new ProcReader(), byCgroup: false }).scan();
 * for (const [jobId, job] of byJob) console.log(jobId, summariseProcesses(job, 4096).rssBytes);
 * ```
 */
export class ProcJobAttribution {
  private readonly proc: ProcReader;
  private readonly byCgroup: boolean;
  private readonly bySlurmstepd: boolean;
  private readonly byEnviron: boolean;
  // By pid; the start time tells a reused pid apart. Entries are updated in place and swept when
  // their process is gone, so a steady node allocates nothing here per round.
  private readonly cache = new Map<number, Cached>();
  private round = 0;

  constructor(options: ProcJobAttributionOptions) {
    this.proc = options.proc;
    this.byCgroup = options.byCgroup ?? true;
    this.bySlurmstepd = options.bySlurmstepd ?? true;
    this.byEnviron = options.byEnviron ?? true;
  }

  /** Read every process once and group those that belong to a job by job id. */
  scan(): Map<string, JobProcesses> {
    const stats = new Map<number, ProcStat>();
    const pids = this.proc.listPids();
    // Index loops and forEach in the per-process paths: without the optimising compiler
    // (`--max-opt=1`) every for-of step allocates, and these run for every process every round.
    for (let i = 0; i < pids.length; i++) {
      const s = this.proc.stat(pids[i]);
      if (s) stats.set(pids[i], s);
    }
    this.proc.prune(new Set(pids));
    const round = ++this.round;
    const stepds = new Map<number, Owner>();
    const owner = (s: ProcStat): Owner => {
      let entry = this.cache.get(s.pid);
      if (entry === undefined) {
        entry = { starttime: s.starttime, owner: this.resolve(s, stats, stepds), round };
        this.cache.set(s.pid, entry);
      } else if (entry.starttime !== s.starttime) {
        entry.starttime = s.starttime;
        entry.owner = this.resolve(s, stats, stepds);
      }
      entry.round = round;
      return entry.owner;
    };
    const out = new Map<string, JobProcesses>();
    stats.forEach((s) => {
      if (s.comm === "slurmstepd") return;
      const o = owner(s);
      if (!o) return;
      let job = out.get(o.jobId);
      if (!job) {
        job = { scheduler: o.scheduler, jobId: o.jobId, processes: [] };
        out.set(o.jobId, job);
      }
      job.processes.push(s);
    });
    // Forget processes that are gone so the cache does not grow without bound.
    this.cache.forEach((entry, pid) => {
      if (entry.round !== round) this.cache.delete(pid);
    });
    return out;
  }

  private resolve(s: ProcStat, stats: Map<number, ProcStat>, stepds: Map<number, Owner>): Owner {
    if (this.byCgroup) {
      const text = this.proc.cgroup(s.pid);
      const id = text === undefined ? undefined : jobFromProcCgroup(text);
      if (id) return { scheduler: id.scheduler, jobId: id.jobId };
    }
    if (this.bySlurmstepd) {
      let cur = stats.get(s.ppid);
      for (let depth = 0; cur && depth < 64; depth++) {
        if (cur.comm === "slurmstepd") {
          let o = stepds.get(cur.pid);
          if (o === undefined) {
            const m = stepdTitle.exec(this.proc.cmdline(cur.pid) ?? "");
            o = m ? { scheduler: "slurm", jobId: m[1] } : null;
            stepds.set(cur.pid, o);
          }
          if (o) return o;
          break;
        }
        if (cur.ppid === cur.pid) break;
        cur = stats.get(cur.ppid);
      }
    }
    if (this.byEnviron) {
      const jobId = this.proc.environVariable(s.pid, "SLURM_JOB_ID");
      if (jobId) return { scheduler: "slurm", jobId };
    }
    return null;
  }
}

/**
 * What summing a job's processes from /proc (no cgroups) cannot tell, in words a diagnosis can name:
 * only live processes' resident pages are counted, at the moments they are read.
 */
export const PROC_SUMS_CANNOT_SEE = [
  "processes that started and exited between two readings",
  "memory the kernel holds for the job beyond its processes' resident pages (page cache, files in /dev/shm)",
  "memory peaks between two readings (the largest sum read stands in)",
  "a memory limit and the I/O of the job",
] as const;

/** Totals of a job's processes. */
export type ProcessTotals = { rssBytes: number; cpuSeconds: number; count: number };

/**
 * Sum resident memory and CPU of a job's processes. CPU counts `utime + stime` plus `cutime + cstime`
 * (children the processes already waited for), so work done by short-lived children is not lost;
 * clock ticks are USER_HZ = 100.
 *
 * @example
 * ```ts
 * const { rssBytes, cpuSeconds } = summariseProcesses(job, 4096);
 * ```
 */
export function summariseProcesses(job: JobProcesses, pageSize: number, clockTicks = 100): ProcessTotals {
  let rss = 0;
  let ticks = 0;
  for (const p of job.processes) {
    rss += p.rssPages * pageSize;
    ticks += p.utime + p.stime + p.cutime + p.cstime;
  }
  return { rssBytes: rss, cpuSeconds: ticks / clockTicks, count: job.processes.length };
}

/**
 * The processes worth naming in a sample: the `top` largest by resident memory and every process
 * in state D (uninterruptible sleep, usually stuck on I/O), at most 32 in all. RSS comes from
 * `VmRSS` where readable.
 *
 * @example
 * ```ts
 * const snapshot = notableProcesses(job, proc, 5);
 * ```
 */
export function notableProcesses(job: JobProcesses, proc: ProcReader, top = 5): ProcessSnapshot[] {
  const byRss = [...job.processes].sort((a, b) => b.rssPages - a.rssPages);
  const chosen = new Map<number, ProcStat>();
  for (const p of byRss.slice(0, top)) chosen.set(p.pid, p);
  for (const p of job.processes) if (p.state === "D" && chosen.size < 32) chosen.set(p.pid, p);
  const out: ProcessSnapshot[] = [];
  for (const p of chosen.values()) {
    if (p.pid < 1 || p.comm === "") continue;
    out.push({
      pid: p.pid,
      command: p.comm.slice(0, 256),
      rssBytes: proc.vmRssBytes(p.pid) ?? p.rssPages * proc.pageSize,
      state: p.state.slice(0, 1) || "?",
    });
  }
  return out;
}
