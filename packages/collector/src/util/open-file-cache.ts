import { closeSync, openSync, readSync } from "node:fs";

const shared = Buffer.allocUnsafe(64 * 1024);

/** Options of {@link OpenFileCache}. */
export type OpenFileCacheOptions = {
  /** Most descriptors kept open; past it files are opened and closed per read. @default 8192 */
  maxOpen?: number;
};

/**
 * Keeps pseudo-files (cgroupfs, procfs) open between collection rounds and re-reads them with
 * `pread` at offset 0, which makes the kernel regenerate a seq_file's content: one system call per
 * file per round instead of open + read + close. A read that fails (the cgroup was removed, the
 * process exited) closes the descriptor and is retried once with a fresh open, so a path that was
 * recreated is read correctly. Descriptors are grouped by directory so a job's can be closed at once.
 *
 * @example
 * ```ts
 * const files = new OpenFileCache();
 * files.read("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_42", "memory.current");
 * files.closeDir("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_42");
 * ```
 */
export class OpenFileCache {
  private readonly maxOpen: number;
  private readonly dirs = new Map<string, Map<string, number>>();
  private open = 0;

  constructor(options: OpenFileCacheOptions = {}) {
    this.maxOpen = options.maxOpen ?? 8192;
  }

  /** Number of descriptors held. */
  get size(): number {
    return this.open;
  }

  /** Content of `dir/name` now, or `undefined` if it does not exist (any more) or cannot be read. */
  read(dir: string, name: string, encoding: "latin1" | "utf8" = "latin1"): string | undefined {
    const files = this.dirs.get(dir);
    const fd = files?.get(name);
    if (fd !== undefined) {
      const text = pread(fd, encoding);
      if (text !== undefined) return text;
      closeSync(fd);
      files!.delete(name);
      this.open--;
    }
    let fresh: number;
    try {
      fresh = openSync(`${dir}/${name}`, "r");
    } catch {
      return undefined;
    }
    const text = pread(fresh, encoding);
    if (text === undefined || this.open >= this.maxOpen) {
      closeSync(fresh);
      return text;
    }
    let map = files;
    if (!map) {
      map = new Map();
      this.dirs.set(dir, map);
    }
    map.set(name, fresh);
    this.open++;
    return text;
  }

  /** Close every descriptor under `dir` (a job that ended). */
  closeDir(dir: string): void {
    const files = this.dirs.get(dir);
    if (!files) return;
    for (const fd of files.values()) closeSync(fd);
    this.open -= files.size;
    this.dirs.delete(dir);
  }

  /** Directories with open descriptors. */
  openDirs(): string[] {
    return [...this.dirs.keys()];
  }

  closeAll(): void {
    for (const dir of [...this.dirs.keys()]) this.closeDir(dir);
  }
}

function pread(fd: number, encoding: "latin1" | "utf8"): string | undefined {
  try {
    const n = readSync(fd, shared, 0, shared.length, 0);
    return shared.toString(encoding, 0, n);
  } catch {
    // ENODEV (cgroup removed), ESRCH (process gone), EACCES: the caller treats it as absent.
    return undefined;
  }
}
