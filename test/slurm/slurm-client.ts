import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { poll } from "./poll.js";
import { runCommand } from "./run-command.js";
import type { SacctJsonOutput, SqueueJsonOutput } from "./slurm-json.js";
import { SlurmTestError } from "./slurm-test-error.js";
import type { SlurmClusterInfo } from "./types.js";

/** One `sacct -P` row, keyed by the requested field names (`{ JobID: "3", State: "FAILED" }`). */
export type SacctRow = Record<string, string>;

/** What {@link SlurmClient.waitForJob} saw last: the job's row and its steps' rows. */
export type JobOutcome = {
  id: string;
  /** First word of State: `CANCELLED by 0` becomes `CANCELLED`. */
  state: string;
  job: SacctRow;
  steps: SacctRow[];
};

/** States after which a job never changes again. */
export const TERMINAL_STATES = [
  "COMPLETED",
  "FAILED",
  "TIMEOUT",
  "CANCELLED",
  "OUT_OF_MEMORY",
  "NODE_FAIL",
  "PREEMPTED",
  "BOOT_FAIL",
  "DEADLINE",
] as const;

/** Fields {@link SlurmClient.waitForJob} reads for the job and each step. */
export const OUTCOME_FIELDS = [
  "JobID",
  "JobName",
  "State",
  "ExitCode",
  "Elapsed",
  "ElapsedRaw",
  "Timelimit",
  "TimelimitRaw",
  "ReqMem",
  "MaxRSS",
  "Start",
  "End",
];

// Reading accounting since "the start of today" (sacct's default) would lose jobs around midnight.
const SINCE_EPOCH = ["--starttime=1970-01-02T00:00:00"];

/**
 * Runs SLURM's commands against one harness cluster. Tests normally use the free functions of
 * test/slurm/index.ts, which build this from the cluster the global setup provided.
 *
 * @example
 * const slurm = new SlurmClient(cluster);
 * const id = await slurm.sbatch("#!/bin/bash\nexit 1\n", ["--time=1"]);
 * const outcome = await slurm.waitForJob(id, TERMINAL_STATES, 30_000); // outcome.state === "FAILED"
 */
export class SlurmClient {
  readonly cluster: SlurmClusterInfo;

  constructor(cluster: SlurmClusterInfo) {
    this.cluster = cluster;
  }

  /** `process.env` plus `SLURM_CONF`, `PATH` and the cluster marker: pass it to any child that runs SLURM commands. */
  env(): NodeJS.ProcessEnv {
    return { ...process.env, ...this.cluster.env };
  }

  /** Runs one SLURM command (`sinfo`, `scontrol`, …) with {@link env} and returns its stdout. */
  async run(command: string, args: string[], input?: string): Promise<string> {
    const file = join(this.cluster.binDir, command);
    return (await runCommand(file, args, { env: this.env(), input, cwd: this.cluster.jobsDir })).stdout;
  }

  /**
   * Submits `script` through stdin and returns the job id. Without `--output`/`-o` the output goes
   * to `<jobsDir>/slurm-<id>.out` ({@link jobOutputPath}); without `--chdir`/`-D` the job runs in jobsDir.
   */
  async sbatch(script: string, args: string[] = []): Promise<string> {
    const has = (...names: string[]) =>
      args.some((arg) => names.some((n) => arg === n || arg.startsWith(`${n}=`)));
    const defaults = [
      ...(has("--output", "-o") ? [] : [`--output=${join(this.cluster.jobsDir, "slurm-%j.out")}`]),
      ...(has("--chdir", "-D") ? [] : [`--chdir=${this.cluster.jobsDir}`]),
    ];
    const stdout = await this.run("sbatch", ["--parsable", ...defaults, ...args], script);
    const id = stdout.trim().split(";")[0];
    if (!/^\d+$/.test(id))
      throw new SlurmTestError("SLURM_COMMAND_FAILED", `sbatch printed no job id: ${stdout}`);
    return id;
  }

  /** `scancel` with extra arguments (e.g. `["--signal=USR1"]`). */
  async scancel(id: string, args: string[] = []): Promise<void> {
    await this.run("scancel", [...args, id]);
  }

  /**
   * `sacct -P -n -a -o <fields>` over all of the cluster's history (plus `args`), one record per
   * line keyed by field name. Job and step lines both appear unless `args` has `-X`.
   */
  async sacctParsable(fields: string[], args: string[] = []): Promise<SacctRow[]> {
    const stdout = await this.run("sacct", [
      "-P",
      "-n",
      "-a",
      ...SINCE_EPOCH,
      `--format=${fields.join(",")}`,
      ...args,
    ]);
    return stdout
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => {
        const values = line.split("|");
        return Object.fromEntries(fields.map((field, i) => [field, values[i] ?? ""]));
      });
  }

  /** `sacct --json -a` over all of the cluster's history (plus `args`, e.g. `["-j", "3,4"]`). */
  async sacctJson(args: string[] = []): Promise<SacctJsonOutput> {
    return JSON.parse(await this.run("sacct", ["--json", "-a", ...SINCE_EPOCH, ...args])) as SacctJsonOutput;
  }

  /** `squeue --json` (plus `args`); lists running jobs and those finished within MinJobAge. */
  async squeueJson(args: string[] = []): Promise<SqueueJsonOutput> {
    return JSON.parse(await this.run("squeue", ["--json", ...args])) as SqueueJsonOutput;
  }

  /** The job's and its steps' accounting rows, or `undefined` before slurmdbd has the job's full record. */
  async outcome(id: string): Promise<JobOutcome | undefined> {
    const rows = await this.sacctParsable(OUTCOME_FIELDS, ["-j", id]);
    const job = rows.find((row) => row.JobID === id);
    // Until slurmdbd has processed the job's start message it shows a placeholder row (JobName
    // "allocation", no Timelimit, ReqMem "16?", Eligible "Unknown"); a real row always has a
    // TimelimitRaw (a number or UNLIMITED).
    if (!job || job.TimelimitRaw === "") return undefined;
    const steps = rows.filter((row) => row.JobID.startsWith(`${id}.`));
    return { id, state: firstWord(job.State), job, steps };
  }

  /**
   * Polls `sacct -P` every 250 ms until the job's state is one of `states` and, for a finished job,
   * every step has finished too (so MaxRSS is recorded). Faster than `sbatch --wait` (~10 s polls).
   */
  async waitForJob(id: string, states: readonly string[], timeoutMs = 120_000): Promise<JobOutcome> {
    let last: JobOutcome | undefined;
    try {
      return await poll(
        async () => {
          last = await this.outcome(id);
          if (!last || !states.includes(last.state)) return undefined;
          const finished = isTerminal(last.state);
          return !finished || last.steps.every((step) => isTerminal(firstWord(step.State)))
            ? last
            : undefined;
        },
        { what: `job ${id} in ${states.join("/")}`, timeoutMs, intervalMs: 250 },
      );
    } catch (error) {
      const seen = last
        ? `${last.state} (steps: ${last.steps.map((s) => `${s.JobID}=${s.State}`).join(", ")})`
        : "nothing";
      throw new SlurmTestError("SLURM_WAIT_TIMEOUT", `job ${id}: last seen ${seen}`, { cause: error });
    }
  }

  /** Where `sbatch()` without `--output` writes the job's output. */
  jobOutputPath(id: string): string {
    return join(this.cluster.jobsDir, `slurm-${id}.out`);
  }

  /** The job's output file (default path unless one is given), or "" when it does not exist yet. */
  async jobOutput(id: string, path = this.jobOutputPath(id)): Promise<string> {
    return readFile(path, "utf8").catch(() => "");
  }
}

/** Whether a state (first word) is final. */
export function isTerminal(state: string): boolean {
  return (TERMINAL_STATES as readonly string[]).includes(state);
}

function firstWord(state: string): string {
  return state.trim().split(/\s+/)[0] ?? "";
}
