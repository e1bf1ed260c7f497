// The parts of SLURM 22.05's JSON output (openapi v0.0.38 / dbv0.0.38) that the tests read; the
// real documents carry many more fields. Units are SLURM's, not Jobsight's: see the field notes.

/** One entry of a `tres` list, e.g. `{ type: "mem", id: 2, count: 100 }`. */
export type TresEntry = {
  type: string;
  name: string | null;
  id: number;
  /** Unit depends on where the list is: MB in a job's `tres`, bytes in a step's `requested.max`. */
  count: number | null;
  task?: number;
  node?: string;
};

/** `exit_code` in `sacct --json`. 22.05 reports exit codes 1 and 3 here as SUCCESS/0; signals are right. */
export type SacctExitCode = {
  status: string;
  return_code: number | null;
  signal?: { signal_id: number; name: string };
};

/** One step (`batch`, `extern`, `0`, …) of a job in `sacct --json`. */
export type SacctStep = {
  step: { job_id: number; id: string | number; name: string };
  state: string;
  exit_code: SacctExitCode;
  time: { elapsed: number; start: number; end: number };
  tres: {
    /** `max` holds per-step peaks: `mem` is MaxRSS in bytes (empty for steps shorter than one sample). */
    requested: { max: TresEntry[]; min: TresEntry[]; average: TresEntry[]; total: TresEntry[] };
    consumed: { max: TresEntry[]; min: TresEntry[]; average: TresEntry[]; total: TresEntry[] };
    allocated: TresEntry[];
  };
};

/** One job in `sacct --json`. */
export type SacctJob = {
  job_id: number;
  name: string;
  cluster: string;
  partition: string;
  user: string;
  nodes: string;
  state: { current: string; reason: string };
  exit_code: SacctExitCode;
  derived_exit_code: SacctExitCode;
  /** `limit` in minutes (null when unlimited); `elapsed` in seconds; the rest Unix seconds. */
  time: { elapsed: number; start: number; end: number; submission: number; limit: number | null };
  /** `memory` in MB. */
  required: { CPUs: number; memory: number };
  /** `mem` counts in MB. */
  tres: { allocated: TresEntry[]; requested: TresEntry[] };
  steps: SacctStep[];
};

/** The whole `sacct --json` document. */
export type SacctJsonOutput = {
  meta: { plugin: { type: string; name: string }; Slurm: { release: string } };
  errors: unknown[];
  jobs: SacctJob[];
};

/** One job in `squeue --json` (finished jobs stay listed for `MinJobAge`). */
export type SqueueJob = {
  job_id: number;
  name: string;
  job_state: string;
  state_reason: string;
  /** The raw wait status: 256 is exit 1, 9 is SIGKILL, 15 is SIGTERM. */
  exit_code: number;
  derived_exit_code: number;
  /** Minutes, null when unlimited. */
  time_limit: number | null;
  submit_time: number;
  start_time: number;
  /** While running: the time at which the limit ends the job. */
  end_time: number;
  /** MB; exactly one of the two is set (`--mem` vs `DefMemPerCPU`/`--mem-per-cpu`). */
  memory_per_node: number | null;
  memory_per_cpu: number | null;
  cpus: number | null;
  tres_req_str: string;
  tres_alloc_str: string;
  partition: string;
  nodes: string;
  user_name: string;
  standard_output: string;
};

/** The whole `squeue --json` document. */
export type SqueueJsonOutput = {
  meta: { plugin: { type: string; name: string }; Slurm: { release: string } };
  errors: unknown[];
  jobs: SqueueJob[];
};

/**
 * The `count` of one TRES type in a list, or `undefined` when the type is absent.
 *
 * @example
 * tresCount(step.tres.requested.max, "mem"); // MaxRSS in bytes
 */
export function tresCount(list: TresEntry[], type: string): number | null | undefined {
  return list.find((entry) => entry.type === type)?.count;
}
