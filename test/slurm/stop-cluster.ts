import { rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { commandName, isAlive, markedProcesses, readPidFile, signal, stopProcess } from "./daemons.js";
import { runCommand } from "./run-command.js";
import { CLUSTER_DIR_PREFIX, clusterPaths } from "./slurm-config.js";
import { SlurmTestError } from "./slurm-test-error.js";

// Stopped in this order: nodes and controller first (they report to slurmdbd), the database last.
const STOP_ORDER = [["slurmd", "slurmctld"], ["slurmdbd"], ["mariadb", "munged"]];
const GRACE_MS = 10_000;

/**
 * Ends the cluster living in `root`: cancels its jobs, stops each daemon by its pid file (SIGTERM,
 * then SIGKILL after 10 s), kills whatever process still carries the cluster's marker (job steps
 * and their children) and deletes the folder. Safe on a half-started cluster and idempotent.
 *
 * @example
 * await stopClusterAt("/tmp/jobsight-slurm-AbC123");
 */
export async function stopClusterAt(root: string): Promise<void> {
  assertClusterRoot(root);
  const paths = clusterPaths(root);
  const pidFile = (name: string) => join(paths.run, `${name}.pid`);
  const controller = readPidFile(pidFile("slurmctld"));
  if (controller !== undefined && isAlive(controller)) await cancelAllJobs(root, paths.slurmConf);
  for (const group of STOP_ORDER) {
    await Promise.all(
      group.map(async (name) => {
        const pid = readPidFile(pidFile(name));
        if (pid !== undefined && isAlive(pid)) await stopProcess(pid, GRACE_MS);
      }),
    );
  }
  for (const pid of markedProcesses().get(root) ?? []) signal(pid, "SIGKILL");
  await rm(root, { recursive: true, force: true });
}

/**
 * Synchronous last resort for signal and exit handlers: SIGTERM to every daemon and marked
 * process, up to 3 s for them to go, SIGKILL to the rest, then the folder is deleted.
 */
export function stopClusterNow(root: string): void {
  assertClusterRoot(root);
  const run = clusterPaths(root).run;
  const pids = new Set(markedProcesses().get(root) ?? []);
  for (const group of STOP_ORDER) {
    for (const name of group) {
      const pid = readPidFile(join(run, `${name}.pid`));
      if (pid !== undefined) pids.add(pid);
    }
  }
  for (const pid of pids) signal(pid, "SIGTERM");
  const deadline = Date.now() + 3_000;
  while ([...pids].some(isAlive) && Date.now() < deadline) sleepSync(50);
  for (const pid of pids) if (isAlive(pid)) signal(pid, "SIGKILL");
  rmSync(root, { recursive: true, force: true });
}

async function cancelAllJobs(root: string, slurmConf: string): Promise<void> {
  const env = { ...process.env, SLURM_CONF: slurmConf };
  try {
    const { stdout } = await runCommand("squeue", ["-h", "-o", "%A"], { env, timeoutMs: 5_000 });
    const ids = stdout.split("\n").filter((id) => /^\d+$/.test(id.trim()));
    if (ids.length === 0) return;
    await runCommand("scancel", ids, { env, timeoutMs: 10_000 });
  } catch {
    // The controller may already be unhealthy; the marked-process sweep still ends the jobs.
    return;
  }
  // KillWait=5: steps that ignore SIGTERM get SIGKILL from slurmstepd within about 5 s.
  const deadline = Date.now() + 8_000;
  while (Date.now() < deadline) {
    const steps = (markedProcesses().get(root) ?? []).filter((pid) => commandName(pid) === "slurmstepd");
    if (steps.length === 0) return;
    await sleep(100);
  }
}

function assertClusterRoot(root: string): void {
  // The folder is deleted recursively: never anything but a harness cluster's own temp folder.
  if (!basename(root).startsWith(CLUSTER_DIR_PREFIX)) {
    throw new SlurmTestError("SLURM_STOP_FAILED", `not a SLURM test cluster folder: ${root}`);
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
