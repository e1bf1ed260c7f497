import { closeSync, openSync, readvSync } from "node:fs";

// One shared buffer: cgroup and /proc files are small and read one at a time on the collector's
// thread, so reusing it avoids an allocation per file on every round.
const shared = Buffer.allocUnsafe(64 * 1024);
// readvSync with a reused list: readSync allocates per call without TurboFan (see open-file-cache.ts).
const sharedList = [shared];

const gone = new Set(["ENOENT", "ENODEV", "ESRCH", "ENOTDIR", "EINVAL"]);

/**
 * Read a small pseudo-file (cgroupfs, procfs) synchronously without a stat call. Returns
 * `undefined` when the file does not exist or vanished (a job or process that just ended), and
 * also on permission errors so one unreadable file never stops a round.
 *
 * @example
 * ```ts
 * const text = readSmallFile("/sys/fs/cgroup/system.slice/memory.current"); // "123456\n" or undefined
 * ```
 */
export function readSmallFile(
  path: string,
  maxBytes = shared.length,
  encoding: "latin1" | "utf8" = "latin1",
): string | undefined {
  return scanSmallFile(path, maxBytes, encoding === "utf8" ? utf8 : latin1);
}

const utf8 = (bytes: Buffer) => bytes.toString("utf8");
const latin1 = (bytes: Buffer) => bytes.toString("latin1");

/**
 * Read a small pseudo-file like {@link readSmallFile} and hand its bytes to `scan`, for callers
 * that want one number out of it and no string. The bytes are only valid during the call.
 *
 * @example
 * ```ts
 * const lines = scanSmallFile("/proc/1/status", 8192, (bytes) => bytes.filter((b) => b === 10).length);
 * ```
 */
export function scanSmallFile<T>(path: string, maxBytes: number, scan: (bytes: Buffer) => T): T | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if (isFsError(error)) return undefined;
    throw error;
  }
  let total: number;
  try {
    // cgroupfs and procfs hand over a whole small file in one read(); a second read only to see
    // end-of-file would cost one more system call per file on every round.
    // Anything past the limit (64 KiB at most) is cut off: no file read here is that large.
    total = Math.min(readvSync(fd, sharedList), maxBytes);
  } catch (error) {
    if (isFsError(error)) return undefined;
    throw error;
  } finally {
    closeSync(fd);
  }
  return scan(shared.subarray(0, total));
}

function isFsError(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return (
    typeof code === "string" && (gone.has(code) || code === "EACCES" || code === "EPERM" || code === "EISDIR")
  );
}

/** True when `code` of a Node fs error says the path is gone. */
export function isGoneError(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return typeof code === "string" && gone.has(code);
}
