import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** `[2026-12-06T19:29:50.269] Launching batch job 17043012 for UID 0` (slurmd). */
const LAUNCH = /^\[([\d:.T-]+)\] Launching batch job (\d+) for UID/;
/** `[2026-12-06T19:29:51.004] [17043012.batch] task 0 (40211) started 2026-12-06T19:29:51` (slurmstepd, verbose). */
const TASK = /^\[([\d:.T-]+)\] \[(\d+)\.batch\] task 0 \(\d+\) started/;

/**
 * When each batch script began, from SLURM's own log (ms since the epoch, by job id): slurmstepd's
 * "task 0 … started" where the log is verbose (the task is forked and execs the script next), else
 * slurmd's "Launching batch job" (earlier by the slurmstepd's own start-up).
 *
 * SLURM records a job's Start (and its `.batch` step's) when slurmctld allocates it; slurmd then
 * launches the batch scripts one at a time (`_rpc_batch_job` holds `launch_mutex` around
 * `_forkexec_slurmstepd`, which waits for each slurmstepd to report), so when a dozen jobs start at
 * once on a loaded node the last script runs tens of seconds after its recorded Start. Before that
 * the job has no process and no cgroup for any collector to see.
 *
 * @example
 * const began = parseBatchStarts(await readFile(slurmdLog, "utf8"));
 * began.get("17043012"); // 1796592591004
 */
export function parseBatchStarts(log: string): Map<string, number> {
  const launched = new Map<string, number>();
  const tasks = new Map<string, number>();
  for (const line of log.split("\n")) {
    const m = TASK.exec(line) ?? LAUNCH.exec(line);
    const into = m?.[0].includes("] task 0") ? tasks : launched;
    // SLURM stamps local time without a zone, which is how Date reads a zone-less date-time.
    if (m && !into.has(m[2])) into.set(m[2], new Date(m[1]).getTime());
  }
  tasks.forEach((at, id) => {
    launched.set(id, at);
  });
  return launched;
}

/** {@link parseBatchStarts} of the test cluster's `log/slurmd.log` (under the cluster's root). */
export async function readBatchStarts(clusterRoot: string): Promise<Map<string, number>> {
  const log = await readFile(join(clusterRoot, "log", "slurmd.log"), "utf8").catch(() => "");
  return parseBatchStarts(log);
}
