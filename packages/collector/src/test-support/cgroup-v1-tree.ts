import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Values of a generated cgroup v1 job. */
export type CgroupV1Values = {
  usage?: number;
  maxUsage?: number;
  /** `undefined` writes the kernel's "unlimited" value 9223372036854771712. */
  limit?: number;
  totalRss?: number;
  totalCache?: number;
  totalShmem?: number;
  totalSwap?: number;
  oomKill?: number;
  cpuacctUsageNs?: number;
  userTicks?: number;
  systemTicks?: number;
  /** -1 (no quota) unless given, in microseconds per 100000 µs period. */
  cfsQuotaUs?: number;
  pids?: number;
  readBytes?: number;
  writeBytes?: number;
};

const UNLIMITED = "9223372036854771712";

function memoryStatV1(
  v: Required<Pick<CgroupV1Values, "totalRss" | "totalCache" | "totalShmem" | "totalSwap">>,
  limit: string,
): string {
  const own: [string, number | string][] = [
    ["cache", 0],
    ["rss", 0],
    ["rss_huge", 0],
    ["shmem", 0],
    ["mapped_file", 0],
    ["dirty", 0],
    ["writeback", 0],
    ["swap", 0],
    ["pgpgin", 0],
    ["pgpgout", 0],
    ["pgfault", 0],
    ["pgmajfault", 0],
    ["inactive_anon", 0],
    ["active_anon", 0],
    ["inactive_file", 0],
    ["active_file", 0],
    ["unevictable", 0],
    ["hierarchical_memory_limit", limit],
    ["hierarchical_memsw_limit", UNLIMITED],
    ["total_cache", v.totalCache],
    ["total_rss", v.totalRss],
    ["total_rss_huge", 0],
    ["total_shmem", v.totalShmem],
    ["total_mapped_file", Math.floor(v.totalCache / 4)],
    ["total_dirty", 0],
    ["total_writeback", 0],
    ["total_swap", v.totalSwap],
    ["total_pgpgin", 482_112],
    ["total_pgpgout", 301_544],
    ["total_pgfault", 611_019],
    ["total_pgmajfault", 12],
    ["total_inactive_anon", Math.floor(v.totalRss / 2)],
    ["total_active_anon", v.totalRss - Math.floor(v.totalRss / 2)],
    ["total_inactive_file", Math.floor(v.totalCache / 2)],
    ["total_active_file", v.totalCache - Math.floor(v.totalCache / 2)],
    ["total_unevictable", 0],
  ];
  return own.map(([k, val]) => `${k} ${val}\n`).join("");
}

/**
 * Builds a cgroup v1 hierarchy (one mount per controller, `cpu,cpuacct` combined with the usual
 * symlinks) with SLURM's `slurm/uid_<uid>/job_<id>/step_<n>` layout, in the kernel's formats.
 *
 * @example
 * ```ts
 * const tree = new CgroupV1Tree();
 * tree.slurmJob(1000, "42", { usage: 2 ** 30 });
 * ```
 */
export class CgroupV1Tree {
  readonly root: string;

  constructor() {
    this.root = mkdtempSync(join(tmpdir(), "jobsight-cgroupv1-"));
    for (const c of ["memory", "cpu,cpuacct", "pids", "blkio"])
      mkdirSync(join(this.root, c), { recursive: true });
    symlinkSync("cpu,cpuacct", join(this.root, "cpu"));
    symlinkSync("cpu,cpuacct", join(this.root, "cpuacct"));
  }

  /** Create a SLURM job (and its steps) in every controller; returns the memory-controller directory. */
  slurmJob(
    uid: number,
    jobId: string,
    v: CgroupV1Values = {},
    steps: string[] = ["extern", "batch"],
  ): string {
    const rel = join("slurm", `uid_${uid}`, `job_${jobId}`);
    const write = (controller: string, files: Record<string, string>) => {
      for (const sub of ["", ...steps.map((s) => `step_${s}`)]) {
        const dir = join(this.root, controller, rel, sub);
        mkdirSync(dir, { recursive: true });
        for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
      }
    };
    const totalRss = v.totalRss ?? 524_288_000;
    const totalCache = v.totalCache ?? 52_428_800;
    const limit = v.limit === undefined ? UNLIMITED : String(v.limit);
    write("memory", {
      "memory.usage_in_bytes": `${v.usage ?? totalRss + totalCache}\n`,
      "memory.max_usage_in_bytes": `${v.maxUsage ?? v.usage ?? totalRss + totalCache}\n`,
      "memory.limit_in_bytes": `${limit}\n`,
      "memory.failcnt": "0\n",
      "memory.stat": memoryStatV1(
        { totalRss, totalCache, totalShmem: v.totalShmem ?? 0, totalSwap: v.totalSwap ?? 0 },
        limit,
      ),
      "memory.oom_control": `oom_kill_disable 0\nunder_oom 0\noom_kill ${v.oomKill ?? 0}\n`,
      tasks: "",
    });
    write("cpu,cpuacct", {
      "cpuacct.usage": `${v.cpuacctUsageNs ?? 12_345_678_901}\n`,
      "cpuacct.stat": `user ${v.userTicks ?? 1100}\nsystem ${v.systemTicks ?? 134}\n`,
      "cpu.cfs_quota_us": `${v.cfsQuotaUs ?? -1}\n`,
      "cpu.cfs_period_us": "100000\n",
      "cpu.stat": "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n",
    });
    write("pids", { "pids.current": `${v.pids ?? 4}\n`, "pids.max": "max\n" });
    const rb = v.readBytes ?? 4096;
    const wb = v.writeBytes ?? 8192;
    write("blkio", {
      "blkio.throttle.io_service_bytes": `8:0 Read ${rb}\n8:0 Write ${wb}\n8:0 Sync ${wb}\n8:0 Async ${rb}\n8:0 Discard 0\n8:0 Total ${rb + wb}\nTotal ${rb + wb}\n`,
      "blkio.throttle.io_serviced":
        "8:0 Read 3\n8:0 Write 5\n8:0 Sync 5\n8:0 Async 3\n8:0 Discard 0\n8:0 Total 8\nTotal 8\n",
    });
    return join(this.root, "memory", rel);
  }

  /** Delete the whole generated tree. */
  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
