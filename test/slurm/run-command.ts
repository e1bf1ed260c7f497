import { spawn } from "node:child_process";
import { SlurmTestError } from "./slurm-test-error.js";

/** How {@link runCommand} runs one program. */
export type RunCommandOptions = {
  /** Full environment of the child. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Text written to the child's stdin, which is then closed. @default "" */
  input?: string;
  /** Kill the child (SIGKILL) and fail after this long. @default 30_000 */
  timeoutMs?: number;
  /** Working directory. @default process.cwd() */
  cwd?: string;
};

/** Output of a command that exited 0. */
export type CommandOutput = { stdout: string; stderr: string };

/**
 * Runs a program without a shell and resolves with its output when it exits 0; anything else
 * (non-zero exit, signal, timeout, missing program) rejects with `SLURM_COMMAND_FAILED` and the
 * command line and stderr in the message.
 *
 * @example
 * const { stdout } = await runCommand("sinfo", ["-h", "-o", "%T"], { env });
 */
export function runCommand(
  file: string,
  args: string[],
  options: RunCommandOptions = {},
): Promise<CommandOutput> {
  const { env = process.env, input = "", timeoutMs = 30_000, cwd } = options;
  const commandLine = [file, ...args].join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    const fail = (reason: string, cause?: unknown) => {
      clearTimeout(timer);
      const text = Buffer.concat(stderr).toString("utf8").trim();
      reject(
        new SlurmTestError("SLURM_COMMAND_FAILED", `${commandLine}: ${reason}${text ? `\n${text}` : ""}`, {
          cause,
        }),
      );
    };
    child.on("error", (error) => fail(error.message, error));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        resolve({
          stdout: Buffer.concat(stdout).toString("utf8"),
          stderr: Buffer.concat(stderr).toString("utf8"),
        });
      } else fail(signal ? `killed by ${signal}` : `exit code ${code}`);
    });
    // A child that exits without reading its stdin must not crash us with EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}
