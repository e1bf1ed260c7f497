import { readdirSync } from "node:fs";
import { OpenFileCache } from "../util/open-file-cache.js";
import { readSmallFile, scanSmallFile } from "../util/read-small-file.js";

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
  /** Threads in the process (`num_threads`). */
  numThreads: number;
  /** Start time after boot, in clock ticks: with the pid, identifies one process over time. */
  starttime: number;
  /** Resident set in pages. */
  rssPages: number;
};

// Fields of /proc/<pid>/stat read (1-based, as proc(5) numbers them): state, ppid, utime, stime,
// cutime, cstime, num_threads, starttime, rss.
const WANTED = [3, 4, 14, 15, 16, 17, 20, 22, 24];
const fieldValues = new Array<number>(WANTED.length).fill(0);

/** `Number(text.slice(start, end))` without the slice when the field is plain digits. */
function numberIn(text: string, start: number, end: number): number {
  if (end <= start || end - start > 15) return Number(text.slice(start, end));
  let v = 0;
  for (let i = start; i < end; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number(text.slice(start, end));
    v = v * 10 + d;
  }
  return v;
}

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
  // Only the fields needed, their digits read in place: this runs for every process every round,
  // and a string per field would be garbage promoted into the old heap.
  const values = fieldValues;
  let state = "";
  let taken = 0;
  let field = 3;
  let start = close + 2;
  while (taken < WANTED.length && start <= text.length) {
    let end = text.indexOf(" ", start);
    if (end < 0) end = text.length;
    if (field === WANTED[taken]) {
      if (taken === 0) state = text.slice(start, end);
      else values[taken] = numberIn(text, start, end);
      taken++;
    }
    field++;
    start = end + 1;
  }
  if (taken < WANTED.length) return undefined;
  const stat: ProcStat = {
    pid: numberIn(text, 0, open - 1),
    comm: text.slice(open + 1, close),
    state,
    ppid: values[1],
    utime: values[2],
    stime: values[3],
    cutime: values[4],
    cstime: values[5],
    numThreads: values[6],
    starttime: values[7],
    rssPages: values[8],
  };
  return Number.isFinite(stat.pid) && Number.isFinite(stat.rssPages) ? stat : undefined;
}

const R = 82; // "R"

/** Whether a thread's `stat` says state R: the third field, two bytes after the last `)` of comm. */
function runnableStat(bytes: Buffer): boolean {
  const close = bytes.lastIndexOf(41 /* ) */);
  return close >= 0 && bytes[close + 2] === R;
}

const VMRSS = Buffer.from("\nVmRSS:", "latin1");

/** `VmRSS` of a status file in bytes; parsed like `parseInt` (blanks, then digits, in kB). */
function vmRssFromStatus(bytes: Buffer): number | undefined {
  const at = bytes.indexOf(VMRSS);
  if (at < 0) return undefined;
  let i = at + VMRSS.length;
  while (i < bytes.length && (bytes[i] === 32 || bytes[i] === 9)) i++;
  let kb = 0;
  let digits = 0;
  for (; i < bytes.length && bytes[i] >= 48 && bytes[i] <= 57; i++, digits++) kb = kb * 10 + bytes[i] - 48;
  return digits > 0 ? kb * 1024 : undefined;
}

function environValue(text: string, name: string): string | undefined {
  const key = `${name}=`;
  let at = text.startsWith(key) ? 0 : text.indexOf(`\0${key}`);
  if (at < 0) return undefined;
  if (at > 0) at += 1;
  const end = text.indexOf("\0", at);
  return text.slice(at + key.length, end < 0 ? undefined : end);
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
 * `environ`, `cmdline`, and each thread's `task/<tid>/stat` state. Every read tolerates a process that exits meanwhile.
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
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
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
    const from = this.root.length + 1;
    this.files.retainDirs((dir) => live.has(Number(dir.slice(from))));
  }

  /** Close every file kept open. */
  close(): void {
    this.files.closeAll();
  }

  /** `VmRSS` of `/proc/<pid>/status` in bytes (absent for kernel threads and zombies). */
  vmRssBytes(pid: number): number | undefined {
    // Read for every job's top processes each round: kept open beside `stat` (one pread) and
    // parsed from the bytes, so the status text never becomes a string.
    return this.files.scan(`${this.root}/${pid}`, "status", vmRssFromStatus);
  }

  /**
   * Threads of a process in state R (running, or runnable and waiting for a core): field 3 of each
   * `/proc/<pid>/task/<tid>/stat`. Undefined when the process is gone; a thread that exits
   * meanwhile is not counted. Reads one small file per thread, so callers bound how many.
   */
  runnableThreads(pid: number): number | undefined {
    const dir = `${this.root}/${pid}/task`;
    let tids: string[];
    try {
      tids = readdirSync(dir);
    } catch {
      return undefined;
    }
    let runnable = 0;
    for (let i = 0; i < tids.length; i++) {
      if (scanSmallFile(`${dir}/${tids[i]}/stat`, 4096, runnableStat) === true) runnable++;
    }
    return runnable;
  }

  cgroup(pid: number): string | undefined {
    return readSmallFile(`${this.root}/${pid}/cgroup`, 8192);
  }

  /** One variable of `/proc/<pid>/environ` (NUL-separated `KEY=value`), if readable. */
  environVariable(pid: number, name: string): string | undefined {
    const text = readSmallFile(`${this.root}/${pid}/environ`);
    return text === undefined ? undefined : environValue(text, name);
  }

  /** The first of `names` set in `/proc/<pid>/environ`, with its value, from one read. */
  firstEnvironVariable(pid: number, names: readonly string[]): { name: string; value: string } | undefined {
    const text = readSmallFile(`${this.root}/${pid}/environ`);
    if (text === undefined) return undefined;
    for (const name of names) {
      const value = environValue(text, name);
      if (value !== undefined) return { name, value };
    }
    return undefined;
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
