// The single-node SLURM cluster shared by the vitest "slurm" project. Import from a test file, e.g.
// `import { describeSlurm, sbatch, waitForJob } from "../../../../test/slurm/index.js";`
import { describe } from "vitest";
import { slurmAvailability, slurmClient } from "./current-cluster.js";
import type { JobOutcome, SacctRow } from "./slurm-client.js";
import type { SacctJsonOutput, SqueueJsonOutput } from "./slurm-json.js";

export { slurmAvailability, slurmClient, slurmCluster } from "./current-cluster.js";
export type { ReferenceJob, ReferenceJobs } from "./jobs.js";
export { submitReferenceJobs, waitForReferenceJobs } from "./jobs.js";
export type { ReferenceJobName, ReferenceJobSpec } from "./reference-jobs.js";
export { REFERENCE_JOBS } from "./reference-jobs.js";
export type { SacctTruth } from "./sacct-truth.js";
export { sacctTruth, sizeToBytes } from "./sacct-truth.js";
export type { JobOutcome, SacctRow } from "./slurm-client.js";
export { isTerminal, OUTCOME_FIELDS, SlurmClient, TERMINAL_STATES } from "./slurm-client.js";
export type {
  SacctExitCode,
  SacctJob,
  SacctJsonOutput,
  SacctStep,
  SqueueJob,
  SqueueJsonOutput,
  TresEntry,
} from "./slurm-json.js";
export { tresCount } from "./slurm-json.js";
export type { SlurmTestErrorCode } from "./slurm-test-error.js";
export { SlurmTestError } from "./slurm-test-error.js";
export type { SlurmAvailability, SlurmClusterInfo, SlurmTimings, SlurmUnavailable } from "./types.js";

/**
 * `describe` that runs only when the cluster is up; otherwise the suite is reported as skipped
 * with the reason in its name (e.g. "… (skipped: not root)").
 *
 * @example
 * describeSlurm("controller mode on real squeue output", () => { it("…", async () => {}); });
 */
export function describeSlurm(name: string, body: () => void): void {
  const availability = slurmAvailability();
  if (availability.available) describe(name, body);
  else describe.skip(`${name} (skipped: ${availability.reason})`, body);
}

/** Environment for a child process that runs SLURM commands against this cluster. */
export function slurmEnv(): NodeJS.ProcessEnv {
  return slurmClient().env();
}

/** Submits a script (given as text) and returns the job id; see {@link SlurmClient.sbatch}. */
export function sbatch(script: string, args: string[] = []): Promise<string> {
  return slurmClient().sbatch(script, args);
}

/** Polls `sacct -P` until the job reaches one of `states`; see {@link SlurmClient.waitForJob}. */
export function waitForJob(id: string, states: readonly string[], timeoutMs?: number): Promise<JobOutcome> {
  return slurmClient().waitForJob(id, states, timeoutMs);
}

/** `sacct --json -a` over the whole run (plus `args`). */
export function sacctJson(args: string[] = []): Promise<SacctJsonOutput> {
  return slurmClient().sacctJson(args);
}

/** `squeue --json` (plus `args`). */
export function squeueJson(args: string[] = []): Promise<SqueueJsonOutput> {
  return slurmClient().squeueJson(args);
}

/** `sacct -P` rows keyed by field name (plus `args`, e.g. `["-j", id, "-X"]`). */
export function sacctParsable(fields: string[], args: string[] = []): Promise<SacctRow[]> {
  return slurmClient().sacctParsable(fields, args);
}
