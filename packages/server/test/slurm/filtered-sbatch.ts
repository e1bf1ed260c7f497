import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SlurmClusterInfo, squeueJson } from "../../../../test/slurm/index.js";
import { runCommand } from "../../../../test/slurm/run-command.js";

/** The example filter as a site installs it. */
export const CLI_FILTER_LUA = new URL("../../../../examples/slurm/cli_filter.lua", import.meta.url).pathname;

/** A client-side configuration folder: the cluster's slurm.conf with cli_filter/lua, and the filter. */
export type FilterClient = {
  /** The copy of slurm.conf; `cli_filter.lua` sits beside it. */
  confPath: string;
  /** Environment for sbatch: the cluster's, with SLURM_CONF on the copy, plus `extra`. */
  env(extra: Record<string, string>): NodeJS.ProcessEnv;
  dispose(): Promise<void>;
};

/**
 * Writes a copy of the running cluster's `slurm.conf` with `CliFilterPlugins=cli_filter/lua` and
 * `cli_filter.lua` beside it, so only the sbatch runs given {@link FilterClient.env} load the
 * filter, not the shared cluster's daemons or other tests. SLURM 22.05 finds the script through
 * `get_extra_conf_path("cli_filter.lua")`: the folder of `$SLURM_CONF`.
 *
 * @example
 * const client = await cliFilterClient(slurmCluster());
 * await filteredSbatch(scriptPath, ["--hold"], client.env({ JOBSIGHT_URL: url }));
 */
export async function cliFilterClient(
  cluster: SlurmClusterInfo,
  lua: string = CLI_FILTER_LUA,
): Promise<FilterClient> {
  const dir = await mkdtemp(join(tmpdir(), "jobsight-cli-filter-"));
  const confPath = join(dir, "slurm.conf");
  const conf = await readFile(cluster.confPath, "utf8");
  await writeFile(confPath, `${conf.trimEnd()}\nCliFilterPlugins=cli_filter/lua\n`);
  await copyFile(lua, join(dir, "cli_filter.lua"));
  return {
    confPath,
    env: (extra) => ({
      ...process.env,
      ...cluster.env,
      SLURM_CONF: confPath,
      // The host's /etc/slurm/jobsight.conf, if any, must not steer the filter under test.
      JOBSIGHT_CONFIG: join(dir, "no-jobsight.conf"),
      ...extra,
    }),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/** What one sbatch run printed. */
export type SbatchRun = { id: string; stderr: string; elapsedMs: number };

/**
 * Runs the cluster's real `sbatch --parsable <args> <script>` with `env`; rejects unless it exits 0
 * with a job id. The script is a file, as users submit it: the filter sees its path as `argv[1]`.
 */
export async function filteredSbatch(
  cluster: SlurmClusterInfo,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<SbatchRun> {
  const startedAt = performance.now();
  const { stdout, stderr } = await runCommand(
    join(cluster.binDir, "sbatch"),
    ["--parsable", `--chdir=${cluster.jobsDir}`, `--output=${cluster.jobsDir}/%x-%j.out`, ...args, script],
    { env, cwd: cluster.jobsDir },
  );
  const elapsedMs = Math.round(performance.now() - startedAt);
  const id = stdout.trim().split(";")[0];
  if (!/^\d+$/.test(id)) throw new Error(`sbatch printed no job id: ${stdout}\n${stderr}`);
  return { id, stderr, elapsedMs };
}

/** What the controller holds for a job: memory per node (MB) and time limit (minutes). */
export type ControllerRequest = { memoryPerNodeMb: number | undefined; timeLimitMinutes: number | undefined };

/** Reads the job's request back from the controller (`squeue --json`). */
export async function controllerRequest(id: string): Promise<ControllerRequest> {
  const job = (await squeueJson(["-j", id])).jobs.find((j) => String(j.job_id) === id);
  if (!job) throw new Error(`squeue --json does not list job ${id}`);
  return {
    memoryPerNodeMb: numberOrUndefined(job.memory_per_node),
    timeLimitMinutes: numberOrUndefined(job.time_limit),
  };
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
