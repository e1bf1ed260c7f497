import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One generated process. */
export type FakeProcess = {
  pid: number;
  ppid?: number;
  comm: string;
  state?: string;
  /** Resident set in bytes (a multiple of 4096). */
  rssBytes?: number;
  utime?: number;
  stime?: number;
  cutime?: number;
  cstime?: number;
  starttime?: number;
  /** `/proc/<pid>/cgroup` content; default the v2 root `0::/`. */
  cgroup?: string;
  environ?: Record<string, string>;
  cmdline?: string[];
  uid?: number;
  /**
   * The process's other threads (the main thread, tid = pid, has `state`), each written as
   * `/proc/<pid>/task/<tid>/stat`; `num_threads` and `Threads:` count them all.
   */
  threads?: { tid: number; state: string; comm?: string }[];
};

/**
 * Builds a procfs lookalike in a temporary folder: `/proc/<pid>/{stat,status,comm,cgroup,environ,cmdline}`,
 * `/proc/<pid>/task/<tid>/stat` per thread and `/proc/uptime`, in the kernel's formats (`stat` with
 * all 52 fields, `status` with its tabs).
 *
 * @example
 * ```ts
 * const proc = new ProcTree();
 * proc.add({ pid: 100, comm: "slurmstepd", cmdline: ["slurmstepd: [42.batch]"] });
 * proc.add({ pid: 101, ppid: 100, comm: "python", rssBytes: 2 ** 30 });
 * ```
 */
export class ProcTree {
  readonly root: string;

  constructor(uptimeSeconds = 86_400.5) {
    this.root = mkdtempSync(join(tmpdir(), "jobsight-proc-"));
    writeFileSync(
      join(this.root, "uptime"),
      `${uptimeSeconds.toFixed(2)} ${(uptimeSeconds * 1.7).toFixed(2)}\n`,
    );
  }

  add(p: FakeProcess): void {
    const dir = join(this.root, String(p.pid));
    mkdirSync(dir, { recursive: true });
    const rssPages = Math.floor((p.rssBytes ?? 8 * 1024 * 1024) / 4096);
    const state = p.state ?? "S";
    const numThreads = 1 + (p.threads?.length ?? 0);
    const statLine = (id: number, comm: string, st: string) =>
      `${statFields(p, id, comm, st, numThreads, rssPages).join(" ")}\n`;
    writeFileSync(join(dir, "stat"), statLine(p.pid, p.comm, state));
    // Each thread's own stat, the main thread's included, as the kernel lists them under task/.
    for (const t of [{ tid: p.pid, state, comm: p.comm }, ...(p.threads ?? [])]) {
      mkdirSync(join(dir, "task", String(t.tid)), { recursive: true });
      writeFileSync(join(dir, "task", String(t.tid), "stat"), statLine(t.tid, t.comm ?? p.comm, t.state));
    }
    const uid = p.uid ?? 1000;
    const rssKb = rssPages * 4;
    writeFileSync(
      join(dir, "status"),
      `Name:\t${p.comm}\nUmask:\t0022\nState:\t${state} (${state === "D" ? "disk sleep" : state === "R" ? "running" : "sleeping"})\n` +
        `Tgid:\t${p.pid}\nNgid:\t0\nPid:\t${p.pid}\nPPid:\t${p.ppid ?? 1}\nTracerPid:\t0\n` +
        `Uid:\t${uid}\t${uid}\t${uid}\t${uid}\nGid:\t${uid}\t${uid}\t${uid}\t${uid}\nFDSize:\t64\n` +
        `VmPeak:\t ${rssKb * 3} kB\nVmSize:\t ${rssKb * 3} kB\nVmLck:\t       0 kB\nVmPin:\t       0 kB\n` +
        `VmHWM:\t ${rssKb} kB\nVmRSS:\t ${rssKb} kB\nRssAnon:\t ${rssKb - 4} kB\nRssFile:\t       4 kB\nRssShmem:\t       0 kB\n` +
        `VmData:\t ${rssKb} kB\nVmStk:\t     132 kB\nVmExe:\t     100 kB\nVmLib:\t    2000 kB\nVmPTE:\t      60 kB\nVmSwap:\t       0 kB\n` +
        `Threads:\t${numThreads}\nSigQ:\t0/95000\n`,
    );
    writeFileSync(join(dir, "comm"), `${p.comm}\n`);
    writeFileSync(join(dir, "cgroup"), p.cgroup ?? "0::/\n");
    const env = { PATH: "/usr/bin:/bin", HOME: "/home/user", ...(p.environ ?? {}) };
    writeFileSync(
      join(dir, "environ"),
      `${Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join("\0")}\0`,
    );
    writeFileSync(join(dir, "cmdline"), `${(p.cmdline ?? [p.comm]).join("\0")}\0`);
  }

  /**
   * Write `/proc/stat` as the kernel does: a `cpu` line, one per core, the long `intr` line, then
   * `ctxt`, `btime` (boot time, seconds since the epoch) and the process counters.
   */
  setBootTime(bootMs: number, cpus = 2): void {
    const cpu = (name: string) => `${name} 178724 0 12956 88374 202 0 444 145 0 0`;
    const lines = [cpu("cpu"), ...Array.from({ length: cpus }, (_, i) => cpu(`cpu${i}`))];
    lines.push(`intr 1843020 ${Array.from({ length: 64 * cpus }, (_, i) => i % 7).join(" ")}`);
    lines.push("ctxt 3270441", `btime ${Math.floor(bootMs / 1000)}`, "processes 9011");
    lines.push("procs_running 2", "procs_blocked 0", "softirq 911032 0 193187 2 18302 0 0 3 301245 0 398293");
    writeFileSync(join(this.root, "stat"), `${lines.join("\n")}\n`);
  }

  /**
   * Write `/proc/loadavg` as `fs/proc/loadavg.c` prints it (`%lu.%02lu %lu.%02lu %lu.%02lu %u/%d %d`):
   * the 1, 5 and 15-minute load averages, running/existing scheduling entities, the last pid.
   */
  setLoadAverage(load: {
    one: number;
    five?: number;
    fifteen?: number;
    running: number;
    total?: number;
  }): void {
    const f = (v: number) => v.toFixed(2);
    const { one, five = one, fifteen = one, running, total = 412 } = load;
    writeFileSync(
      join(this.root, "loadavg"),
      `${f(one)} ${f(five)} ${f(fifteen)} ${running}/${total} 12345\n`,
    );
  }

  /**
   * Point a process's `cwd`, `root` (always `/`, as outside a container) and `fd/<n>` links where
   * the kernel would: its working directory and the files its descriptors hold open.
   */
  link(pid: number, links: { cwd?: string; fds?: Record<number, string> }): void {
    const dir = join(this.root, String(pid));
    symlinkSync("/", join(dir, "root"));
    if (links.cwd) symlinkSync(links.cwd, join(dir, "cwd"));
    mkdirSync(join(dir, "fd"), { recursive: true });
    for (const [fd, target] of Object.entries(links.fds ?? {})) symlinkSync(target, join(dir, "fd", fd));
  }

  /** A process exits. */
  remove(pid: number): void {
    rmSync(join(this.root, String(pid)), { recursive: true, force: true });
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The 52 fields of `/proc/<pid>/stat` (or of one thread's `task/<tid>/stat`) as the kernel writes them. */
function statFields(
  p: FakeProcess,
  id: number,
  comm: string,
  state: string,
  numThreads: number,
  rssPages: number,
): (string | number)[] {
  return [
    id,
    `(${comm})`,
    state,
    p.ppid ?? 1,
    p.pid,
    p.pid,
    0,
    -1,
    4194304,
    1523,
    0,
    2,
    0,
    p.utime ?? 150,
    p.stime ?? 20,
    p.cutime ?? 0,
    p.cstime ?? 0,
    20,
    0,
    numThreads,
    0,
    p.starttime ?? 5_000_000,
    rssPages * 4096 * 3,
    rssPages,
    "18446744073709551615",
    94_000_000_000_000,
    94_000_000_100_000,
    140_730_000_000_000,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    17,
    3,
    0,
    0,
    0,
    0,
    0,
    94_000_000_200_000,
    94_000_000_300_000,
    94_000_001_000_000,
    140_730_000_100_000,
    140_730_000_200_000,
    140_730_000_200_000,
    140_730_000_300_000,
    0,
  ];
}
