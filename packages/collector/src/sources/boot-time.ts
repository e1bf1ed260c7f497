import { closeSync, openSync, readSync } from "node:fs";

const BTIME = Buffer.from("\nbtime ", "latin1");
// /proc/stat of a large node runs past 100 KB (a cpu line per core, one long intr line).
const chunk = Buffer.allocUnsafe(16 * 1024);

/**
 * Wall-clock time of boot in ms, from the `btime` line of `<procRoot>/stat`. The kernel derives
 * it from the current clock on every read, so it follows clock steps (NTP at boot) where a value
 * computed once at start would not. Undefined when the file cannot be read or has no `btime`.
 *
 * @example
 * ```ts
 * readBootTimeMs("/proc"); // 1796504939000
 * ```
 */
export function readBootTimeMs(procRoot: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(`${procRoot}/stat`, "r");
  } catch {
    return undefined;
  }
  try {
    // Scan the bytes chunk by chunk, keeping a tail so a line split across reads is still found.
    let carry = Buffer.alloc(0);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return undefined;
      const bytes = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      const at = bytes.indexOf(BTIME);
      if (at >= 0) {
        const end = bytes.indexOf(10, at + BTIME.length);
        if (end >= 0) return secondsToMs(bytes.toString("latin1", at + BTIME.length, end));
      }
      carry = Buffer.from(bytes.subarray(at >= 0 ? at : Math.max(0, bytes.length - BTIME.length)));
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function secondsToMs(text: string): number | undefined {
  const s = Number(text.trim());
  return Number.isInteger(s) && s > 0 ? s * 1000 : undefined;
}
