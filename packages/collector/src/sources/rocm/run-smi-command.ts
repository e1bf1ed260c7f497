import type { ExecFileException } from "node:child_process";
import { tiedCommand, trackChild } from "../../util/tied-child.js";

/** What one run of an AMD SMI command gave: what it printed, and why it failed if it did. */
export type SmiCommandRun = {
  /** Standard output, whole (also when the command failed). */
  stdout: string;
  /** Set when the command could not run or exited non-zero, in words for `onUnavailable`. */
  error?: string;
};

/**
 * Run `command args` once (rocm-smi, amd-smi) under the guard that kills it with the collector
 * (see `tiedCommand`), within `timeoutMs`. Resolves, never rejects: a missing command says so
 * (`… not found: no AMD GPU tools on this node`), a failing one gives its exit status and the
 * first line it wrote to stderr.
 *
 * @example
 * ```ts
 * const run = await runSmiCommand("amd-smi", ["list", "--json"], 5_000);
 * if (run.error) log.warn(run.error);
 * ```
 */
export async function runSmiCommand(
  command: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<SmiCommandRun> {
  // Loaded when GPUs are watched, not at import: most nodes have none.
  const { execFile } = await import("node:child_process");
  const tied = tiedCommand(command, [...args]);
  return new Promise<SmiCommandRun>((resolve) => {
    trackChild(
      execFile(
        tied.file,
        tied.args,
        { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (!error) return resolve({ stdout });
          resolve({ stdout, error: failure(command, error, `${stderr}`, timeoutMs) });
        },
      ),
    );
  });
}

function failure(command: string, error: ExecFileException, stderr: string, timeoutMs: number): string {
  const code: unknown = error.code;
  // The guard's shell says 127 for a command it cannot find, where a plain spawn says ENOENT.
  if (code === 127 || code === "ENOENT") return `${command} not found: no AMD GPU tools on this node`;
  const said = stderr.trim().split("\n")[0] ?? "";
  // error.message would quote the guard's whole shell script, so name the cause instead.
  // Killed by us and not for its output: the timeout. The guard shell then exits 143, not by signal.
  const why =
    error.killed && code !== "ERR_CHILD_PROCESS_STDIO_MAXBUFFER"
      ? `timed out after ${timeoutMs} ms`
      : typeof code === "number" || typeof code === "string"
        ? String(code)
        : (error.signal ?? "no exit status");
  return `${command} failed (${why})${said ? `: ${said}` : ""}`;
}
