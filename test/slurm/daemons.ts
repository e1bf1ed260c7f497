import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { SlurmTestError } from "./slurm-test-error.js";

/** Environment variable carried by every process of a harness cluster; its value is the cluster's root. */
export const CLUSTER_MARKER = "JOBSIGHT_SLURM_ROOT";

/**
 * Runs a program that daemonizes itself (munged, slurmdbd, slurmctld, slurmd) and resolves once
 * the launching process has exited 0. Waits for "exit", not "close": a daemon may keep the
 * inherited pipes open for its whole life.
 *
 * @example
 * await launchDaemon("slurmctld", [], env);
 */
export function launchDaemon(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    const output: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
    child.on("error", (error) =>
      reject(new SlurmTestError("SLURM_START_FAILED", `${file}: ${error.message}`, { cause: error })),
    );
    child.on("exit", (code, signal) => {
      child.stdout.destroy();
      child.stderr.destroy();
      if (code === 0) resolve();
      else {
        const text = Buffer.concat(output).toString("utf8").trim();
        const how = signal ? `killed by ${signal}` : `exit code ${code}`;
        reject(new SlurmTestError("SLURM_START_FAILED", `${file} ${args.join(" ")}: ${how}\n${text}`));
      }
    });
  });
}

/** The pid in a pid file, or `undefined` when the file is missing or holds no number. */
export function readPidFile(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return pid > 1 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (a zombie counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    return !/\)\s+Z\s/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Sends a signal, ignoring a process that is already gone. */
export function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone: nothing to stop.
  }
}

/**
 * SIGTERM, then SIGKILL if the process is still there after `graceMs`; resolves once it is gone.
 *
 * @example
 * await stopProcess(readPidFile(pidFile)!, 10_000);
 */
export async function stopProcess(pid: number, graceMs: number): Promise<void> {
  signal(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) {
      signal(pid, "SIGKILL");
      await sleep(100);
      return;
    }
    await sleep(50);
  }
}

/**
 * Every process whose environment carries {@link CLUSTER_MARKER}, grouped by its value (a
 * cluster root). Daemons get the marker from the harness, job steps from slurmd, and job processes
 * from the submitting environment, so this finds a cluster's processes and nothing else.
 */
export function markedProcesses(): Map<string, number[]> {
  const byRoot = new Map<string, number[]>();
  const prefix = `${CLUSTER_MARKER}=`;
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || pid === process.ppid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, "latin1");
    } catch {
      continue;
    }
    const variable = environ.split("\0").find((v) => v.startsWith(prefix));
    if (!variable) continue;
    const root = variable.slice(prefix.length);
    byRoot.set(root, [...(byRoot.get(root) ?? []), pid]);
  }
  return byRoot;
}

/** The short command name of a process (`slurmstepd`, `sleep`), or `undefined` when it is gone. */
export function commandName(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return undefined;
  }
}
