import { spawn } from "node:child_process";
import { access, chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** What a finished child process said. */
export type ProcessResult = { code: number; stdout: string; stderr: string };

/**
 * Runs a command to its end (no shell of our own), with `env` as its whole environment.
 *
 * @example
 * ```ts
 * const { code, stdout } = await runProcess("bash", ["script.sh"], { env: { PATH: process.env.PATH } });
 * ```
 */
export function runProcess(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
    child.stdin.end(options.input ?? "");
  });
}

const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

/** A folder with a `jobsight` command (the SDK's built CLI) to put first on `PATH`. */
export type CliOnPath = { bin: string; remove(): Promise<void> };

/**
 * Makes `jobsight` runnable by name, as `npm install --global @jobsight/sdk` would, from the SDK's
 * `dist` (build it first: `pnpm --filter @jobsight/sdk build`).
 *
 * @example
 * ```ts
 * const cli = await jobsightOnPath();
 * const env = { PATH: `${cli.bin}:${process.env.PATH}` };
 * ```
 */
export async function jobsightOnPath(): Promise<CliOnPath> {
  await access(CLI).catch(() => {
    throw new Error(`${CLI} is missing: run pnpm --filter @jobsight/sdk build first`);
  });
  const bin = await mkdtemp(join(tmpdir(), "jobsight-bin-"));
  await writeFile(join(bin, "jobsight"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  await chmod(join(bin, "jobsight"), 0o755);
  return { bin, remove: () => rm(bin, { recursive: true, force: true }) };
}
