import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CgroupState,
  type GpuState,
  gpuLine,
  type ProcState,
  writeCgroup,
  writeNvidiaSmi,
  writeProc,
} from "./node-files.js";

const GiB = 1024 ** 3;
/** The round in which the kernel kills the OOM job. */
export const OOM_ROUND = 12;
const MiB = 1024 ** 2;

/** What a demo job is there to show. */
export type DemoJobRole = "oom" | "stalled" | "idle_gpus" | "healthy";

/** One job of the generated node. */
export type DemoJob = {
  jobId: string;
  role: DemoJobRole;
  name: string;
  cores: number;
  memoryBytes: number;
  gpus: number[];
};

/** The node's jobs: one OOM-killed, one with a stalled loader, one holding GPUs it never uses, one healthy. */
export const DEMO_JOBS: readonly DemoJob[] = [
  { jobId: "900101", role: "oom", name: "assemble-genome", cores: 4, memoryBytes: 8 * GiB, gpus: [] },
  { jobId: "900102", role: "stalled", name: "train-resnet", cores: 8, memoryBytes: 32 * GiB, gpus: [0] },
  { jobId: "900103", role: "idle_gpus", name: "eval-llm", cores: 4, memoryBytes: 16 * GiB, gpus: [1, 2] },
  { jobId: "900104", role: "healthy", name: "train-unet", cores: 8, memoryBytes: 32 * GiB, gpus: [3] },
];

const GPUS = [
  { uuid: "GPU-5f3c2a1b-8e7d-4c6b-a9f0-1e2d3c4b5a69", pci: "3B" },
  { uuid: "GPU-9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", pci: "5E" },
  { uuid: "GPU-1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e", pci: "86" },
  { uuid: "GPU-6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c", pci: "AF" },
];

/** The generated node: folders for the collector and a method that moves it on by one round. */
export class DemoNode {
  readonly cgroupRoot: string;
  readonly procRoot: string;
  readonly nvidiaSmi: string;
  readonly kmsgPath: string;
  readonly spoolDir: string;
  readonly #dir: string;
  #kmsgSeq = 2_000;
  #usage = new Map<string, number>();

  /** Lays the node out under `dir` (a temporary folder). */
  constructor(dir: string) {
    this.#dir = dir;
    this.cgroupRoot = join(dir, "sys-fs-cgroup");
    this.procRoot = join(dir, "proc");
    this.kmsgPath = join(dir, "kmsg");
    this.spoolDir = join(dir, "spool");
    mkdirSync(join(this.cgroupRoot, "system.slice", "slurmd.service"), { recursive: true });
    mkdirSync(join(this.cgroupRoot, "system.slice", "slurmstepd.scope", "system"), { recursive: true });
    writeFileSync(
      join(this.cgroupRoot, "cgroup.controllers"),
      "cpuset cpu io memory hugetlb pids rdma misc\n",
    );
    mkdirSync(join(this.procRoot, "sys", "kernel", "random"), { recursive: true });
    writeFileSync(
      join(this.procRoot, "sys", "kernel", "random", "boot_id"),
      "3b1f2c1e-6a1d-4e0b-9a51-6f7c0d2e8a41\n",
    );
    writeFileSync(join(this.procRoot, "uptime"), "86400.50 146880.85\n");
    mkdirSync(join(dir, "gpu"), { recursive: true });
    this.nvidiaSmi = writeNvidiaSmi(join(dir, "gpu"));
    writeFileSync(
      this.kmsgPath,
      this.#kmsg(
        6,
        "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1",
      ) +
        this.#kmsg(
          6,
          "slurmstepd[41200]: task/cgroup: _memcg_initialize: job: alloc=8192MB mem.limit=8192MB memsw.limit=unlimited",
        ),
    );
    this.round(0, 60);
  }

  #kmsg(priority: number, message: string): string {
    this.#kmsgSeq++;
    return `${priority},${this.#kmsgSeq},${86_400_000_000 + this.#kmsgSeq * 1000},-;${message}\n`;
  }

  /**
   * Writes round `r`'s readings (`stepSeconds` after the previous one): cgroups, processes, GPUs
   * and, in the OOM round, the kernel's lines.
   */
  round(r: number, stepSeconds: number): void {
    const gpus: GpuState[] = GPUS.map((g, index) => ({
      index,
      ...g,
      util: 0,
      usedMiB: 4,
      power: 52.3,
      temp: 33,
    }));
    const apps: string[] = [];
    for (const job of DEMO_JOBS) {
      const dir = join(this.cgroupRoot, "system.slice", "slurmstepd.scope", `job_${job.jobId}`);
      const base = Number(job.jobId) * 10;
      const pids = job.role === "stalled" ? [base + 1, base + 2, base + 3] : [base + 1];
      const killed = job.role === "oom" && r >= OOM_ROUND;
      const busy =
        job.role === "healthy" ? 0.95 : job.role === "stalled" ? 0.3 : job.role === "oom" ? 1 : 0.1;
      const usage = (this.#usage.get(job.jobId) ?? 5e8) + job.cores * busy * 1e6 * stepSeconds;
      this.#usage.set(job.jobId, usage);
      const anon =
        job.role === "oom"
          ? Math.min(job.memoryBytes - 64 * MiB, (5.2 + r * 0.25) * GiB)
          : job.role === "healthy"
            ? (18 + Math.sin(r) * 2) * GiB
            : job.role === "stalled"
              ? 6 * GiB
              : 2.5 * GiB;
      const state: CgroupState = {
        anon,
        file: job.role === "oom" ? 60 * MiB : 1.2 * GiB,
        memoryMax: job.memoryBytes,
        oomKill: killed ? 1 : 0,
        usageUsec: Math.round(usage),
        cores: job.cores,
        ioSome: job.role === "stalled" ? 48 + (r % 3) * 6 : 1.2,
        memSome: job.role === "oom" ? Math.min(90, 5 + r * 7) : 0,
        readBytes: 5e8 + r * (job.role === "stalled" ? 4e7 : 4e9),
        procs: killed ? [] : pids,
      };
      writeCgroup(dir, state);
      for (const step of ["extern", "batch"]) {
        writeCgroup(join(dir, `step_${step}`), { ...state, procs: [] });
        writeCgroup(join(dir, `step_${step}`, "user", "task_0"), {
          ...state,
          procs: step === "batch" ? state.procs : [],
        });
      }
      for (const [i, pid] of pids.entries()) {
        const proc: ProcState = {
          pid,
          comm: i === 0 ? (job.role === "oom" ? "spades-hammer" : "python") : "pt_data_worker",
          state: job.role === "stalled" && i > 0 ? "D" : job.role === "healthy" ? "R" : "S",
          rssBytes: i === 0 ? anon * 0.9 : 600 * MiB,
          cgroup: `/system.slice/slurmstepd.scope/job_${job.jobId}/step_batch/user/task_0`,
          jobId: job.jobId,
          utime: Math.round(usage / 1e4 / pids.length),
        };
        if (!killed) writeProc(this.procRoot, proc);
      }
      for (const g of job.gpus) {
        const gpu = gpus[g];
        if (job.role === "stalled")
          Object.assign(gpu, { util: 2 + (r % 3) * 2, usedMiB: 21_340, power: 71.5, temp: 41 });
        if (job.role === "idle_gpus") Object.assign(gpu, { util: 0, usedMiB: 415, power: 58.1, temp: 34 });
        if (job.role === "healthy")
          Object.assign(gpu, { util: 93 + (r % 4), usedMiB: 61_200, power: 388.4, temp: 71 });
        apps.push(`${base + 1}, ${gpu.uuid}, ${gpu.usedMiB - 4}\n`);
      }
    }
    writeFileSync(join(this.#dir, "gpu", "gpus.csv"), gpus.map(gpuLine).join(""));
    writeFileSync(join(this.#dir, "gpu", "compute-apps.csv"), apps.join(""));
    if (r === OOM_ROUND) this.#oomLines();
  }

  #oomLines(): void {
    const pid = 900101 * 10 + 1;
    const cg = "/system.slice/slurmstepd.scope/job_900101";
    appendFileSync(
      this.kmsgPath,
      this.#kmsg(
        4,
        "spades-hammer invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
      ) +
        this.#kmsg(
          6,
          `CPU: 3 PID: ${pid} Comm: spades-hammer Not tainted 6.1.0-18-amd64 #1  Debian 6.1.76-1`,
        ) +
        this.#kmsg(6, "memory: usage 8388608kB, limit 8388608kB, failcnt 2291") +
        this.#kmsg(
          6,
          `oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=${cg},task_memcg=${cg}/step_batch/user/task_0,task=spades-hammer,pid=${pid},uid=1000`,
        ) +
        this.#kmsg(
          3,
          `Memory cgroup out of memory: Killed process ${pid} (spades-hammer) total-vm:9437184kB, anon-rss:8290304kB, file-rss:2048kB, shmem-rss:0kB, UID:1000 pgtables:16404kB oom_score_adj:0`,
        ) +
        // An Xid of a GPU no demo job holds: the collector reports it as a node event.
        this.#kmsg(
          4,
          "NVRM: Xid (PCI:0000:D8:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row marked for remapping, reset gpu to activate.",
        ),
    );
  }
}
