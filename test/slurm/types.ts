/** Everything a test needs to reach the single-node SLURM cluster started for this run. */
export type SlurmClusterInfo = {
  available: true;
  /** `slurm-wlm` version reported by `slurmd -V`, e.g. `22.05.8`. */
  version: string;
  /** The run's temp folder: configuration, state, spool, logs, pid files, MariaDB, munge. */
  root: string;
  /** Generated `slurm.conf`; `slurmdbd.conf` sits beside it (slurmdbd finds it through `SLURM_CONF`). */
  confPath: string;
  /** Folder holding `sbatch`, `squeue`, `sacct`, `scancel`, `scontrol`, `sinfo`. */
  binDir: string;
  /** Where reference jobs and `sbatch()` without `--output` write `slurm-<id>.out`. */
  jobsDir: string;
  /**
   * Variables to add to a child's environment so SLURM commands talk to this cluster.
   * `JOBSIGHT_SLURM_ROOT` marks every process of the cluster (daemons, steps, jobs) so the teardown
   * can find and end exactly those.
   */
  env: { SLURM_CONF: string; PATH: string; JOBSIGHT_SLURM_ROOT: string };
  clusterName: string;
  partition: string;
  node: { name: string; cpus: number; realMemoryMb: number };
  /** `DefMemPerCPU` in MB: what a job without `--mem` gets per CPU. */
  defMemPerCpuMb: number;
  ports: { slurmctld: number; slurmd: number; slurmdbd: number; mariadb: number };
  mungeSocket: string;
  mariadb: { host: string; port: number; socket: string; user: string; password: string; database: string };
  /** Milliseconds spent by the global setup, for the run's timing report. */
  timings: SlurmTimings;
};

/** Milliseconds: package check/install, the whole start, and each start phase (munge, mariadb, …). */
export type SlurmTimings = { installMs: number; startMs: number; phasesMs: Record<string, number> };

/** Why the cluster is not there; tests skip with this reason in their name. */
export type SlurmUnavailable = { available: false; reason: string };

/** What the global setup provides: a running cluster, or the reason there is none. */
export type SlurmAvailability = SlurmClusterInfo | SlurmUnavailable;

/** The `provide`/`inject` key under which {@link SlurmAvailability} travels. */
export const SLURM_CLUSTER_KEY = "jobsightSlurm";

declare module "vitest" {
  export interface ProvidedContext {
    jobsightSlurm: SlurmAvailability;
  }
}
