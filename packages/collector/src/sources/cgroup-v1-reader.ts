import { existsSync } from "node:fs";
import { readSmallFile } from "../util/read-small-file.js";
import { parseFlatKeyed, parseSingleValue } from "./cgroup-formats.js";
import type { CgroupReader, CgroupUsage } from "./cgroup-usage.js";

// memory.limit_in_bytes without a limit reads PAGE_COUNTER_MAX * PAGE_SIZE (9223372036854771712 on
// x86_64 with 4 KiB pages); anything this large means "unlimited".
const UNLIMITED = 2 ** 62;
// cpuacct.stat counts in USER_HZ, which is 100 on every Linux architecture Jobsight runs on.
const USER_HZ = 100;

/**
 * What a job's cgroup v1 directories cannot tell, in words a diagnosis can name: v1 keeps no
 * pressure stall information per cgroup, and its blkio controller charges buffered writes to the
 * kernel's flusher rather than to the job that wrote them.
 */
export const CGROUP_V1_CANNOT_SEE = [
  "pressure stall (PSI) of the job's CPU, memory and I/O",
  "buffered writes the kernel flushes to disk later (cgroup v1 counts them for no job)",
] as const;

/** Options of {@link CgroupV1Reader}. */
export type CgroupV1ReaderOptions = {
  /** Where the v1 controllers are mounted (`<root>/memory`, `<root>/cpuacct`, …). @default "/sys/fs/cgroup" */
  root?: string;
};

function defined<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** Sum `Read`/`Write` lines of a v1 `blkio.throttle.io_service_bytes`/`io_serviced` file. */
export function parseBlkioRecursive(text: string): { read: number; write: number } {
  let read = 0;
  let write = 0;
  for (const line of text.split("\n")) {
    const [, op, value] = line.split(" ");
    const v = Number(value);
    if (!Number.isFinite(v)) continue;
    if (op === "Read") read += v;
    else if (op === "Write") write += v;
  }
  return { read, write };
}

/**
 * Reads a job's cgroup v1 directories for sites still on the legacy hierarchy:
 * `memory.usage_in_bytes`, `memory.max_usage_in_bytes`, `memory.limit_in_bytes`, the
 * hierarchical `total_*` lines of `memory.stat`, `memory.oom_control`, `cpuacct.usage`,
 * `cpuacct.stat`, `cpu.stat`/`cpu.cfs_*`, `pids.current` and `blkio.throttle.*`.
 * `read()` takes the job's directory under the memory controller; the other controllers'
 * directories are found by the same relative path.
 *
 * @example
 * ```ts
 * const reader = new CgroupV1Reader({ root: "/sys/fs/cgroup" });
 * reader.read("/sys/fs/cgroup/memory/slurm/uid_1000/job_42")?.memory?.peakBytes;
 * ```
 */
export class CgroupV1Reader implements CgroupReader {
  private readonly root: string;
  private readonly memoryRoot: string;
  private readonly mounts = new Map<string, string>();

  constructor(options: CgroupV1ReaderOptions = {}) {
    this.root = options.root ?? "/sys/fs/cgroup";
    this.memoryRoot = `${this.root}/memory`;
  }

  private controller(name: "cpuacct" | "cpu"): string {
    // Distributions mount cpu and cpuacct together as "cpu,cpuacct" (with symlinks) or apart.
    let mount = this.mounts.get(name);
    if (mount === undefined) {
      mount = existsSync(`${this.root}/${name}`) ? `${this.root}/${name}` : `${this.root}/cpu,cpuacct`;
      this.mounts.set(name, mount);
    }
    return mount;
  }

  read(dir: string): CgroupUsage | undefined {
    const rel = dir.startsWith(this.memoryRoot) ? dir.slice(this.memoryRoot.length) : dir;
    const mem = (n: string) => readSmallFile(`${this.memoryRoot}${rel}/${n}`);
    const usageText = mem("memory.usage_in_bytes");
    const cpuacctDir = `${this.controller("cpuacct")}${rel}`;
    const cpuUsageText = readSmallFile(`${cpuacctDir}/cpuacct.usage`);
    if (usageText === undefined && cpuUsageText === undefined) return undefined;

    const usage: CgroupUsage = {};
    const current = usageText === undefined ? undefined : parseSingleValue(usageText);
    if (current !== undefined) {
      const maxText = mem("memory.max_usage_in_bytes");
      const limitText = mem("memory.limit_in_bytes");
      const limit = limitText === undefined ? undefined : parseSingleValue(limitText);
      const statText = mem("memory.stat");
      const stat = statText === undefined ? undefined : parseFlatKeyed(statText);
      const oomText = mem("memory.oom_control");
      const oom = oomText === undefined ? undefined : parseFlatKeyed(oomText);
      usage.memory = defined({
        currentBytes: current,
        peakBytes: maxText === undefined ? undefined : parseSingleValue(maxText),
        limitBytes: limit !== undefined && limit < UNLIMITED ? limit : undefined,
        anonBytes: stat?.get("total_rss"),
        fileBytes: stat?.get("total_cache"),
        shmemBytes: stat?.get("total_shmem"),
        swapBytes: stat?.get("total_swap"),
        oomKillEvents: oom?.get("oom_kill"),
      });
    }

    const cpuNs = cpuUsageText === undefined ? undefined : parseSingleValue(cpuUsageText);
    if (cpuNs !== undefined) {
      const statText = readSmallFile(`${cpuacctDir}/cpuacct.stat`);
      const stat = statText === undefined ? undefined : parseFlatKeyed(statText);
      const cpuDir = `${this.controller("cpu")}${rel}`;
      const throttleText = readSmallFile(`${cpuDir}/cpu.stat`);
      const throttle = throttleText === undefined ? undefined : parseFlatKeyed(throttleText);
      const quota = parseSingleValue(readSmallFile(`${cpuDir}/cpu.cfs_quota_us`) ?? "");
      const period = parseSingleValue(readSmallFile(`${cpuDir}/cpu.cfs_period_us`) ?? "");
      const user = stat?.get("user");
      const system = stat?.get("system");
      const throttledNs = throttle?.get("throttled_time");
      usage.cpu = defined({
        usageSeconds: cpuNs / 1e9,
        userSeconds: user === undefined ? undefined : user / USER_HZ,
        systemSeconds: system === undefined ? undefined : system / USER_HZ,
        periods: throttle?.get("nr_periods"),
        throttledPeriods: throttle?.get("nr_throttled"),
        throttledSeconds: throttledNs === undefined ? undefined : throttledNs / 1e9,
        limitCores: quota !== undefined && quota > 0 && period ? quota / period : undefined,
      });
    }

    const pidsText = readSmallFile(`${this.root}/pids${rel}/pids.current`);
    const pids = pidsText === undefined ? undefined : parseSingleValue(pidsText);
    if (pids !== undefined) usage.pids = pids;

    const bytesText = readSmallFile(`${this.root}/blkio${rel}/blkio.throttle.io_service_bytes`);
    if (bytesText !== undefined) {
      const bytes = parseBlkioRecursive(bytesText);
      const opsText = readSmallFile(`${this.root}/blkio${rel}/blkio.throttle.io_serviced`);
      const ops = opsText === undefined ? undefined : parseBlkioRecursive(opsText);
      usage.io = defined({
        readBytes: bytes.read,
        writeBytes: bytes.write,
        readOps: ops?.read,
        writeOps: ops?.write,
      });
    }
    return usage;
  }

  forget(_dir: string): void {}

  close(): void {}
}
