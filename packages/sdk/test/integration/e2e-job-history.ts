import type { JobRecord, JobSpec } from "@jobsight/schemas";

const GiB = 2 ** 30;

/** A deterministic PRNG (mulberry32), so every run trains on the same history. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The SLURM job a researcher keeps submitting in these tests: 64 GiB, 16 cores, 24 hours. */
export function slurmTrainSpec(user: string, cluster = "hpc1"): JobSpec {
  return {
    cluster,
    scheduler: "slurm",
    user,
    account: `acct-${user}`,
    partition: "batch",
    jobName: "train",
    executable: "train.py",
    requested: { memoryBytes: 64 * GiB, cores: 16, walltimeSeconds: 24 * 3600, nodes: 1 },
  };
}

function otherJob(
  user: string,
  cluster: string,
  exe: string,
  memoryGiB: number,
  cores: number,
  hours: number,
): JobSpec {
  return {
    cluster,
    scheduler: "slurm",
    user,
    account: `acct-${user}`,
    partition: "batch",
    jobName: exe,
    executable: exe,
    requested: { memoryBytes: memoryGiB * GiB, cores, walltimeSeconds: hours * 3600, nodes: 1 },
  };
}

/**
 * The rest of a small site: four more users whose jobs ask for 8 to 128 GiB. A model trained on
 * one kind of job alone cannot tell a typical over-request from an extreme one and abstains;
 * with neighbours like these it recommends for the everyday jobs.
 */
export function neighbourSpecs(cluster = "hpc1"): JobSpec[] {
  return [
    otherJob("carol", cluster, "sim", 16, 4, 4),
    otherJob("dave", cluster, "md.x", 128, 32, 12),
    otherJob("erin", cluster, "post.py", 8, 2, 2),
    otherJob("frank", cluster, "align", 32, 8, 8),
  ];
}

/** Options of {@link endedJobHistory}. */
export type JobHistoryOptions = {
  /** What the jobs asked for; jobs cycle through these. @default alice's and bob's {@link slurmTrainSpec} and {@link neighbourSpecs} */
  specs?: JobSpec[];
  /** Jobs per spec. @default 60 */
  jobsPerSpec?: number;
  /** Numeric job id of the first job; later ones count up. @default 100000 */
  firstJobId?: number;
  /** Seed of the generator. @default 7 */
  seed?: number;
};

/**
 * Ended jobs the way a controller collector reports them: each used 14–19% of the memory it asked
 * for, about a quarter of its cores and 100–140 minutes of walltime, and completed. One was
 * submitted every two hours over the weeks before 2026-11-20.
 *
 * @example
 * ```ts
 * await client.jobs.ingest(endedJobHistory({ specs: [slurmTrainSpec("alice"), ...neighbourSpecs()] }));
 * ```
 */
export function endedJobHistory(options: JobHistoryOptions = {}): JobRecord[] {
  const specs = options.specs ?? [slurmTrainSpec("alice"), slurmTrainSpec("bob"), ...neighbourSpecs()];
  const perSpec = options.jobsPerSpec ?? 60;
  const firstId = options.firstJobId ?? 100_000;
  const next = random(options.seed ?? 7);
  const start = Date.UTC(2026, 10, 20) - perSpec * specs.length * 2 * 3600_000;
  const records: JobRecord[] = [];
  let n = 0;
  for (let i = 0; i < perSpec; i++) {
    for (const spec of specs) {
      const submitted = start + n * 2 * 3600_000;
      const run = Math.round(6000 + next() * 2400);
      const startedAt = submitted + 60_000;
      const requested = spec.requested;
      const cores = (requested.cores ?? 4) * (0.22 + next() * 0.06);
      const jobId =
        spec.scheduler === "kubernetes"
          ? `${spec.account ?? "default"}/${spec.jobName ?? "job"}-${firstId + n}`
          : String(firstId + n);
      records.push({
        cluster: spec.cluster,
        jobId,
        phase: "ended",
        source: spec.scheduler === "kubernetes" ? "kubernetes" : "slurm-controller",
        spec,
        submittedAt: new Date(submitted).toISOString(),
        startedAt: new Date(startedAt).toISOString(),
        endedAt: new Date(startedAt + run * 1000).toISOString(),
        outcome: { state: "COMPLETED", exitCode: 0 },
        nodes: [`n${(n % 8) + 1}`],
        peaks: {
          memoryBytes: Math.round((requested.memoryBytes ?? 16 * GiB) * (0.14 + next() * 0.05)),
          coresUsed: cores,
          runTimeSeconds: run,
          cpuTimeSeconds: Math.round(cores * run),
        },
      });
      n++;
    }
  }
  return records;
}
