import { readdirSync } from "node:fs";
import { OpenFileCache } from "../util/open-file-cache.js";
import { readSmallFile } from "../util/read-small-file.js";

/** What `/proc/<pid>/stat` says about one process. */
export type ProcStat = {
  pid: number;
  /** Command name (`comm`, at most 15 characters). */
  comm: string;
  /** State letter: R, S, D, Z, T, I, … */
  state: string;
  ppid: number;
  /** CPU time in clock ticks (USER_HZ). */
  utime: number;
  stime: number;
  /** CPU time of waited-for children, in clock ticks. */
  cutime: number;
  cstime: number;
  /** Start time after boot, in clock ticks: with the pid, identifies one process over time. */
  starttime: number;
  /** Resident set in pages. */
  rssPages: number;
};

/**
 * Parse `/proc/<pid>/stat`. The command name sits in parentheses and may itself contain spaces
 * and parentheses, so fields are counted from the last `)`.
 *
 * @example
 * ```ts
 * parseProcStat("1234 (python3) R 1 1234 1234 0 -1 4194304 …")?.state; // "R"
 * ```
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  // Walk the space-separated fields after the command name, keeping only the ones needed:
  // this runs for every process every round, so it avoids splitting 50 fields into strings.
  const wanted = [3, 4, 14, 15, 16, 17, 22, 24];
  const values: string[] = [];
  let field = 3;
  let start = close + 2;
  while (values.length < wanted.length && start <= text.length) {
    let end = text.indexOf(" ", start);
    if (end < 0) end = text.length;
    if (field === wanted[values.length]) values.push(text.slice(start, end));
    field++;
    start = end + 1;
  }
  if (values.length < wanted.length) return undefined;
  const stat: ProcStat = {
    pid: Number(text.slice(0, open - 1)),
    comm: text.slice(open + 1, close),
    state: values[0],
    ppid: Number(values[1]),
    utime: Number(values[2]),
    stime: Number(values[3]),
    cutime: Number(values[4]),
    cstime: Number(values[5]),
    starttime: Number(values[6]),
    rssPages: Number(values[7]),
  };
  return Number.isFinite(stat.pid) && Number.isFinite(stat.rssPages) ? stat : undefined;
}

/** Options of {@link ProcReader}. */
export type ProcReaderOptions = {
  /** The procfs mount. @default "/proc" */
  root?: string;
  /** Bytes per page for `rss` in `/proc/<pid>/stat`. @default 4096 */
  pageSize?: number;
  /** Keep each live process's `stat` open between rounds and re-read it with pread. @default true */
  keepOpen?: boolean;
};

/**
 * Reads processes from procfs (or a generated copy of it): `stat`, `status` (VmRSS), `cgroup`,
 * `environ`, `cmdline`. Every read tolerates a process that exits meanwhile.
 *
 * @example
 * ```ts
 * const proc = new ProcReader({ root: "/proc" });
 * for (const pid of proc.listPids()) console.log(proc.stat(pid)?.comm);
 * ```
 */
export class ProcReader {
  readonly root: string;
  readonly pageSize: number;
  private readonly files: OpenFileCache;

  constructor(options: ProcReaderOptions = {}) {
    this.root = options.root ?? "/proc";
    this.pageSize = options.pageSize ?? 4096;
    this.files = new OpenFileCache({ maxOpen: options.keepOpen === false ? 0 : 8192 });
  }

  /** Every process id present now. */
  listPids(): number[] {
    let names: string[];
    try {
      names = readdirSync(this.root);
    } catch {
      return [];
    }
    const pids: number[] = [];
    for (const name of names) {
      const c = name.charCodeAt(0);
      if (c >= 48 && c <= 57) {
        const pid = Number(name);
        if (Number.isInteger(pid)) pids.push(pid);
      }
    }
    return pids;
  }

  stat(pid: number): ProcStat | undefined {
    // An open /proc/<pid>/stat stays bound to its process: once it exits, reads fail (ESRCH) and a
    // later process with the same pid is opened afresh.
    const text = this.files.read(`${this.root}/${pid}`, "stat", "utf8");
    return text === undefined ? undefined : parseProcStat(text);
  }

  /** Close what is held open for processes not in `live` (call after listing pids). */
  prune(live: Set<number>): void {
    for (const dir of this.files.openDirs()) {
      const pid = Number(dir.slice(this.root.length + 1));
      if (!live.has(pid)) this.files.closeDir(dir);
    }
  }

  /** Close every file kept open. */
  close(): void {
    this.files.closeAll();
  }

  /** `VmRSS` of `/proc/<pid>/status` in bytes (absent for kernel threads and zombies). */
  vmRssBytes(pid: number): number | undefined {
    const text = readSmallFile(`${this.root}/${pid}/status`, 8192);
    if (text === undefined) return undefined;
    const at = text.indexOf("\nVmRSS:");
    if (at < 0) return undefined;
    const end = text.indexOf("\n", at + 1);
    const kb = Number.parseInt(text.slice(at + 7, end < 0 ? undefined : end).trim(), 10);
    return Number.isFinite(kb) ? kb * 1024 : undefined;
  }

  cgroup(pid: number): string | undefined {
    return readSmallFile(`${this.root}/${pid}/cgroup`, 8192);
  }

  /** One variable of `/proc/<pid>/environ` (NUL-separated `KEY=value`), if readable. */
  environVariable(pid: number, name: string): string | undefined {
    const text = readSmallFile(`${this.root}/${pid}/environ`);
    if (text === undefined) return undefined;
    const key = `${name}=`;
    let at = text.startsWith(key) ? 0 : text.indexOf(`\0${key}`);
    if (at < 0) return undefined;
    if (at > 0) at += 1;
    const end = text.indexOf("\0", at);
    return text.slice(at + key.length, end < 0 ? undefined : end);
  }

  /** `/proc/<pid>/cmdline` with NULs turned into spaces. */
  cmdline(pid: number): string | undefined {
    const text = readSmallFile(`${this.root}/${pid}/cmdline`, 4096, "utf8");
    return text === undefined ? undefined : text.replace(/\0+$/, "").replace(/\0/g, " ");
  }

  /** Seconds since boot from `/proc/uptime`. */
  uptimeSeconds(): number | undefined {
    const text = readSmallFile(`${this.root}/uptime`, 256);
    if (text === undefined) return undefined;
    const v = Number(text.split(" ")[0]);
    return Number.isFinite(v) ? v : undefined;
  }
}
