import { join } from "node:path";
import { launchDaemon } from "./daemons.js";
import { runCommand } from "./run-command.js";

/** Where the cluster's private munged keeps its key, socket, seed, pid and log. */
export type MungePaths = { dir: string; socket: string; pidFile: string; logFile: string };

/**
 * Creates a fresh key and starts a private munged on its own socket (never the system's
 * /run/munge), so the cluster cannot collide with a site munge or another run.
 *
 * @example
 * const munge = await startMunge({ dir, pidFile, logFile }, env);
 */
export async function startMunge(
  paths: Omit<MungePaths, "socket">,
  env: NodeJS.ProcessEnv,
): Promise<MungePaths> {
  const keyFile = join(paths.dir, "munge.key");
  const socket = join(paths.dir, "munge.socket");
  await runCommand("mungekey", ["--create", `--keyfile=${keyFile}`], { env });
  await launchDaemon(
    "munged",
    [
      `--socket=${socket}`,
      `--key-file=${keyFile}`,
      `--pid-file=${paths.pidFile}`,
      `--log-file=${paths.logFile}`,
      `--seed-file=${join(paths.dir, "munged.seed")}`,
    ],
    env,
  );
  return { ...paths, socket };
}
