import { type JobRecord, killedForMemory } from "@jobsight/schemas/light";

const SIGKILL = 9;

/**
 * Marks a job (and its steps) killed by signal 9 with a MaxRSS above its memory limit as
 * OUT_OF_MEMORY. Without the cgroup task plugin SLURM enforces memory by polling and reports such
 * a kill as FAILED (or CANCELLED) 0:9, never OUT_OF_MEMORY. The rule is `killedForMemory`, the
 * one the server's sacct import and learner apply, so a job reads the same whichever way it
 * arrived. SLURM's own state word is kept in `outcome.reason` when it gave none.
 *
 * @example
 * ```ts
 * markMemoryKill(record); // FAILED, signal 9, batch MaxRSS 3 GiB over a 2 GiB request → OUT_OF_MEMORY
 * ```
 */
export function markMemoryKill(record: JobRecord): void {
  const limit = record.allocated?.memoryBytes ?? record.spec.requested.memoryBytes;
  for (const step of record.steps ?? []) {
    if (step.state && step.state !== "COMPLETED" && killedForMemory(step.signal, step.maxRssBytes, limit))
      step.state = "OUT_OF_MEMORY";
  }
  const outcome = record.outcome;
  if (!outcome || (outcome.state !== "FAILED" && outcome.state !== "CANCELLED")) return;
  const batch = record.steps?.find((s) => s.stepId === "batch");
  const signal = outcome.signal ?? batch?.signal;
  if (!killedForMemory(signal, batch?.maxRssBytes ?? record.peaks?.memoryBytes, limit)) return;
  outcome.reason ??= `SLURM reported ${outcome.state} by signal 9 with MaxRSS above the memory limit`;
  outcome.state = "OUT_OF_MEMORY";
  outcome.signal = SIGKILL;
  delete outcome.exitCode;
}
