import { readFileSync } from "node:fs";

/**
 * Whether process `pid` still runs: false once it is gone or a zombie (an orphan that a container's
 * init does not reap stays a zombie, though it runs no more).
 *
 * @example
 * ```ts
 * await vi.waitFor(() => expect(running(pid)).toBe(false));
 * ```
 */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Kill `pid` if it still runs (test clean-up). */
export function killIfRunning(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}
