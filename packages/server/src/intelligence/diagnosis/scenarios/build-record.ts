import type { JobOutcome, JobRecord, JobStep, ResourceRequest } from "@jobsight/schemas";

/** An ended SLURM job's record as the controller-mode collector builds it from `sacct --json`. */
export function slurmRecord(r: {
  jobId: string;
  user: string;
  node: string | string[];
  jobName: string;
  executable?: string;
  partition?: string;
  qos?: string;
  requested: ResourceRequest;
  submittedAt: string;
  startedAt?: string;
  endedAt: string;
  outcome: JobOutcome;
  steps?: JobStep[];
  peaks?: JobRecord["peaks"];
  cluster?: string;
}): JobRecord {
  const cluster = r.cluster ?? "hpc1";
  return {
    cluster,
    jobId: r.jobId,
    phase: "ended",
    source: "slurm-controller",
    spec: {
      cluster,
      scheduler: "slurm",
      user: r.user,
      account: "research",
      partition: r.partition ?? "compute",
      ...(r.qos ? { qos: r.qos } : {}),
      jobName: r.jobName,
      ...(r.executable ? { executable: r.executable } : {}),
      requested: r.requested,
      submitTime: r.submittedAt,
    },
    submittedAt: r.submittedAt,
    ...(r.startedAt ? { startedAt: r.startedAt } : {}),
    endedAt: r.endedAt,
    outcome: r.outcome,
    nodes: Array.isArray(r.node) ? r.node : [r.node],
    allocated: r.requested,
    ...(r.peaks ? { peaks: r.peaks } : {}),
    ...(r.steps ? { steps: r.steps } : {}),
  };
}
