import { CommandError } from "../errors.js";
import { tiedCommand, trackChild } from "./tied-child.js";

/** Options of {@link runCommand}. */
export type RunCommandOptions = {
  /** Time limit. @default 60000 */
  timeoutMs?: number;
  /** Largest output accepted. @default 268435456 */
  maxBuffer?: number;
  /** Extra environment. @default none */
  env?: Record<string, string>;
};

/**
 * Run a command (no shell of ours around its arguments) and return its standard output; a
 * failure, non-zero exit or timeout becomes a {@link CommandError} that carries the first line of
 * its standard error. The command dies with the collector (see {@link tiedCommand}).
 *
 * @example
 * ```ts
 * const json = await runCommand("squeue", ["--json"]);
 * ```
 */
export async function runCommand(
  command: string,
  args: string[],
  options: RunCommandOptions = {},
): Promise<string> {
  // Loaded on first use: node mode without GPUs never runs a command and so never loads it.
  const { execFile } = await import("node:child_process");
  const tied = tiedCommand(command, args);
  return new Promise((resolve, reject) => {
    const child = execFile(
      tied.file,
      tied.args,
      {
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: options.maxBuffer ?? 256 * 1024 * 1024,
        env: options.env ? { ...process.env, ...options.env } : process.env,
      },
      (error, stdout, stderr) => {
        if (error) {
          const said = String(stderr).trim().split("\n")[0] ?? "";
          reject(
            new CommandError(
              "COMMAND_FAILED",
              `${command} ${args.join(" ")} failed: ${said || error.message}`,
              { cause: error },
            ),
          );
          return;
        }
        resolve(String(stdout));
      },
    );
    trackChild(child);
  });
}
