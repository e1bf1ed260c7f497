import { open, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { poll } from "./poll.js";
import {
  REFERENCE_JOBS,
  type ReferenceJobName,
  type ReferenceJobSpec,
  referenceJobArgs,
} from "./reference-jobs.js";
import { type JobOutcome, type SlurmClient, TERMINAL_STATES } from "./slurm-client.js";

/** A submitted reference job. */
export type ReferenceJob = ReferenceJobSpec & {
  id: string;
  /** The job's output file (stdout and stderr, where slurmstepd writes its kill notices). */
  outputPath: string;
};

/** The submitted reference set, by name. */
export type ReferenceJobs = Record<ReferenceJobName, ReferenceJob>;

let memo: Promise<ReferenceJobs> | undefined;

/**
 * Submits the reference jobs (one that completes, exits 1, times out, exceeds its memory, is
 * cancelled while running, and a healthy long one) ONCE per test run and returns their ids. The
 * global setup calls it right after start-up so the slow ones run while other files test; every
 * later call, in any test file, reads the same ids from `<root>/reference-jobs.json`.
 * Resolves as soon as the jobs are submitted; use {@link waitForReferenceJobs} for their ends.
 *
 * @example
 * const jobs = await submitReferenceJobs();
 * const outcome = await slurmClient().waitForJob(jobs.exitsOne.id, TERMINAL_STATES);
 */
export async function submitReferenceJobs(client?: SlurmClient): Promise<ReferenceJobs> {
  memo ??= (async () => submitOnce(client ?? (await import("./current-cluster.js")).slurmClient()))();
  try {
    return await memo;
  } catch (error) {
    memo = undefined;
    throw error;
  }
}

/**
 * Waits until the named reference jobs (all by default) have finished, steps included, and
 * returns what `sacct -P` says of each. Bounded by the timeout job (~70-90 s after start).
 *
 * @example
 * const outcomes = await waitForReferenceJobs(["overMemory"]);
 * outcomes.overMemory.job.ExitCode; // "0:9"
 */
export async function waitForReferenceJobs(
  names: readonly ReferenceJobName[] = REFERENCE_JOBS.map((spec) => spec.name),
  options: { client?: SlurmClient; timeoutMs?: number } = {},
): Promise<Partial<Record<ReferenceJobName, JobOutcome>>> {
  const client = options.client ?? (await import("./current-cluster.js")).slurmClient();
  const jobs = await submitReferenceJobs(client);
  const outcomes = await Promise.all(
    names.map(
      async (name) =>
        [
          name,
          await client.waitForJob(jobs[name].id, TERMINAL_STATES, options.timeoutMs ?? 180_000),
        ] as const,
    ),
  );
  return Object.fromEntries(outcomes);
}

async function submitOnce(client: SlurmClient): Promise<ReferenceJobs> {
  const file = join(client.cluster.root, "reference-jobs.json");
  const existing = await readJobs(file);
  if (existing) return existing;
  // Test files run in separate processes: the first to take the lock submits, the others wait.
  let lock: Awaited<ReturnType<typeof open>>;
  try {
    lock = await open(`${file}.lock`, "wx");
  } catch {
    return poll(() => readJobs(file), { what: "the reference jobs of another process", timeoutMs: 60_000 });
  }
  try {
    const submit = async (spec: ReferenceJobSpec): Promise<ReferenceJob> => {
      const id = await client.sbatch(spec.script, referenceJobArgs(spec, client.cluster.jobsDir));
      return { ...spec, id, outputPath: join(client.cluster.jobsDir, `${spec.jobName}-${id}.out`) };
    };
    // The timeout job first: everything waits for it, so every second it starts earlier counts.
    const [first, ...rest] = REFERENCE_JOBS;
    const submitted = [await submit(first), ...(await Promise.all(rest.map(submit)))];
    const jobs = Object.fromEntries(submitted.map((job) => [job.name, job])) as ReferenceJobs;
    await writeFile(`${file}.tmp`, JSON.stringify(jobs, null, 2));
    await rename(`${file}.tmp`, file);
    return jobs;
  } finally {
    await lock.close();
  }
}

async function readJobs(file: string): Promise<ReferenceJobs | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as ReferenceJobs;
  } catch {
    return undefined;
  }
}
