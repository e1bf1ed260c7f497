import { closeSync, openSync, readSync } from "node:fs";

// One shared buffer: cgroup and /proc files are small and read one at a time on the collector's
// thread, so reusing it avoids an allocation per file on every round.
const shared = Buffer.allocUnsafe(64 * 1024);

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
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if (isFsError(error)) return undefined;
    throw error;
  }
  try {
    // cgroupfs and procfs hand over a whole small file in one read(); a second read only to see
    // end-of-file would cost one more system call per file on every round.
    // Anything past the limit (64 KiB at most) is cut off: no file read here is that large.
    const total = readSync(fd, shared, 0, Math.min(maxBytes, shared.length), null);
    return shared.toString(encoding, 0, total);
  } catch (error) {
    if (isFsError(error)) return undefined;
    throw error;
  } finally {
    closeSync(fd);
  }
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
