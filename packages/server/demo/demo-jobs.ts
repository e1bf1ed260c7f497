import type { JobRecord } from "@jobsight/schemas";
import { DEMO_JOBS, type DemoJob } from "./demo-node.js";

const iso = (ms: number) => new Date(ms).toISOString();
const GiB = 1024 ** 3;

/** Options of {@link demoJobRecords}. */
export type DemoJobTimes = {
  cluster: string;
  node: string;
  submittedAt: number;
  startedAt: number;
  endedAt: number;
};

function outcome(job: DemoJob): JobRecord["outcome"] {
  switch (job.role) {
    case "oom":
      return { state: "OUT_OF_MEMORY", exitCode: 0, signal: 9, reason: "OutOfMemory" };
    case "stalled":
      return { state: "TIMEOUT", exitCode: 0, signal: 15, reason: "TimeLimit" };
    default:
      return { state: "COMPLETED", exitCode: 0 };
  }
}

function peaks(job: DemoJob, runSeconds: number): JobRecord["peaks"] {
  const memory = { oom: job.memoryBytes, stalled: 7.3 * GiB, idle_gpus: 3.8 * GiB, healthy: 20.4 * GiB }[
    job.role
  ];
  const cores = { oom: 3.9, stalled: 2.4, idle_gpus: 0.4, healthy: 7.6 }[job.role];
  return {
    memoryBytes: Math.round(memory),
    coresUsed: cores,
    gpusUsed: job.role === "healthy" || job.role === "stalled" ? 1 : 0,
    runTimeSeconds: runSeconds,
    cpuTimeSeconds: Math.round(cores * runSeconds),
  };
}

/**
 * The lifecycle records of the demo's jobs, as the SLURM controller collector would send them:
 * `submitted`, `started`, and after the run `ended` with each job's outcome.
 *
 * @example
 * ```ts
 * const { submitted, started, ended } = demoJobRecords({ cluster: "demo", node: "gpu-a01", ... });
 * ```
 */
export function demoJobRecords(t: DemoJobTimes): {
  submitted: JobRecord[];
  started: JobRecord[];
  ended: JobRecord[];
} {
  const make = (job: DemoJob, phase: JobRecord["phase"]): JobRecord => {
    const record: JobRecord = {
      cluster: t.cluster,
      jobId: job.jobId,
      phase,
      source: "slurm-controller",
      spec: {
        cluster: t.cluster,
        scheduler: "slurm",
        user: job.role === "oom" ? "20" : "61",
        account: job.role === "oom" ? "3" : "70",
        partition: "gpu",
        jobName: job.name,
        requested: {
          cores: job.cores,
          memoryBytes: job.memoryBytes,
          walltimeSeconds: job.role === "stalled" ? 1_800 : 4 * 3_600,
          nodes: 1,
          ...(job.gpus.length > 0 ? { gpus: job.gpus.length } : {}),
        },
        submitTime: iso(t.submittedAt),
      },
      submittedAt: iso(t.submittedAt),
    };
    if (phase === "submitted") return record;
    record.startedAt = iso(t.startedAt);
    record.nodes = [t.node];
    record.allocated = { ...record.spec.requested };
    if (phase === "started") return record;
    record.endedAt = iso(t.endedAt);
    record.outcome = outcome(job);
    record.peaks = peaks(job, Math.round((t.endedAt - t.startedAt) / 1000));
    return record;
  };
  return {
    submitted: DEMO_JOBS.map((j) => make(j, "submitted")),
    started: DEMO_JOBS.map((j) => make(j, "started")),
    ended: DEMO_JOBS.map((j) => make(j, "ended")),
  };
}
