import { closeSync, openSync, readvSync } from "node:fs";

const shared = Buffer.allocUnsafe(64 * 1024);
// readvSync with one reused buffer list, not readSync: readSync's argument handling allocates
// ~0.5 KB per call unless TurboFan optimises it, and the collector runs without TurboFan
// (`--max-opt=1`) doing thousands of reads per round. Same pread(2) underneath.
const sharedList = [shared];

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
    const n = this.readShared(dir, name);
    return n < 0 ? undefined : shared.toString(encoding, 0, n);
  }

  /**
   * Hand the bytes of `dir/name` now to `scan`, for callers that want a number out of a file and no
   * string of it (the bytes are only valid during the call); `undefined` if it cannot be read.
   */
  scan<T>(dir: string, name: string, scan: (bytes: Buffer) => T): T | undefined {
    const n = this.readShared(dir, name);
    return n < 0 ? undefined : scan(shared.subarray(0, n));
  }

  /** Read `dir/name` into `shared` through a kept descriptor; bytes read, or -1. */
  private readShared(dir: string, name: string): number {
    const files = this.dirs.get(dir);
    const fd = files?.get(name);
    if (fd !== undefined) {
      const n = pread(fd);
      if (n >= 0) return n;
      closeSync(fd);
      files!.delete(name);
      this.open--;
    }
    let fresh: number;
    try {
      fresh = openSync(`${dir}/${name}`, "r");
    } catch {
      return -1;
    }
    const n = pread(fresh);
    if (n < 0 || this.open >= this.maxOpen) {
      closeSync(fresh);
      return n;
    }
    let map = files;
    if (!map) {
      map = new Map();
      this.dirs.set(dir, map);
    }
    map.set(name, fresh);
    this.open++;
    return n;
  }

  /** Close every descriptor under `dir` (a job that ended). */
  closeDir(dir: string): void {
    const files = this.dirs.get(dir);
    if (files) this.closeFiles(dir, files);
  }

  /** Close the descriptors of every directory `keep` says no to (processes that exited). */
  retainDirs(keep: (dir: string) => boolean): void {
    // forEach, not a copy of the keys: this runs over every process every round. Deleting the
    // entry being visited is safe in Map.prototype.forEach.
    this.dirs.forEach((files, dir) => {
      if (!keep(dir)) this.closeFiles(dir, files);
    });
  }

  closeAll(): void {
    this.retainDirs(() => false);
  }

  private closeFiles(dir: string, files: Map<string, number>): void {
    for (const fd of files.values()) closeSync(fd);
    this.open -= files.size;
    this.dirs.delete(dir);
  }
}

/** Bytes read into `shared` from offset 0, or -1 when the file cannot be read (any more). */
function pread(fd: number): number {
  try {
    return readvSync(fd, sharedList, 0);
  } catch {
    // ENODEV (cgroup removed), ESRCH (process gone), EACCES: the caller treats it as absent.
    return -1;
  }
}
