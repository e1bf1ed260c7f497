import { execFile } from "node:child_process";
import { join } from "node:path";

/** Output of one run of the `jobsight` CLI. */
export type CliRun = { code: number; stdout: string; stderr: string };

/**
 * Runs the built `jobsight` CLI of the SDK as a user would, against the demo's server (the server
 * may not import the SDK, and the CLI's table and diff are what users see).
 */
export function runJobsightCli(
  repoRoot: string,
  args: string[],
  url: string,
  token: string,
): Promise<CliRun> {
  const cli = join(repoRoot, "packages", "sdk", "dist", "cli", "main.js");
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      {
        cwd: repoRoot,
        env: { ...process.env, JOBSIGHT_URL: url, JOBSIGHT_TOKEN: token, NO_COLOR: "1", FORCE_COLOR: "0" },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
