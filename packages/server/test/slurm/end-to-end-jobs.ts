import { existsSync } from "node:fs";
import {
  REFERENCE_JOBS,
  type ReferenceJobName,
  type ReferenceJobSpec,
  sbatch,
  slurmCluster,
} from "../../../../test/slurm/index.js";

/** A job of this suite: a reference job or this file's own copy of one. */
export type EndToEndJob = {
  id: string;
  /** Which reference job it is (or copies). */
  kind: ReferenceJobName;
  /** Whether this file submitted it (so the node collector ran for all of its life). */
  own: boolean;
  spec: ReferenceJobSpec;
};

const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";

/** The healthy long job, held 15 s instead of 60 s: long enough for a dozen usage samples. */
const HEALTHY_COPY = [
  "#!/bin/bash",
  `${PYTHON} - <<'PY'`,
  "import time",
  'held = [b"x" * (10 * 1024 * 1024) for _ in range(10)]',
  'print("holding", len(held) * 10, "MB", flush=True)',
  "time.sleep(15)",
  'print("done", flush=True)',
  "PY",
  "",
].join("\n");

/**
 * Submits this file's own copies of every reference job but the timeout (whose copy would add a
 * minute and a half; the reference one is used), in parallel, so the node collector started just
 * before sees each of them run from its start.
 *
 * @example
 * const copies = await submitCopies();
 */
export async function submitCopies(): Promise<EndToEndJob[]> {
  const jobsDir = slurmCluster().jobsDir;
  const specs = REFERENCE_JOBS.filter((spec) => spec.name !== "timeout");
  return Promise.all(
    specs.map(async (spec) => {
      const script = spec.name === "healthyLong" ? HEALTHY_COPY : spec.script;
      const id = await sbatch(script, [
        `--job-name=e2e-${spec.jobName}`,
        "--ntasks=1",
        `--cpus-per-task=${spec.request.cpus}`,
        `--mem=${spec.request.memMb}M`,
        `--time=${spec.request.timeMinutes}`,
        `--output=${jobsDir}/%x-%j.out`,
      ]);
      return { id, kind: spec.name, own: true, spec };
    }),
  );
}
