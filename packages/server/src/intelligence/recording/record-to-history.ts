import { type JobSpec, type JobState, killedForMemory } from "@jobsight/schemas";
import type { StoredJob } from "../../data-plane/stores/stored-jobs.js";
import type { HistoryJob, JobOutcomeKind, JobQuantities } from "../history-job.js";

/**
 * Outcome of a job for learning: only `completed` is an exact target; a job killed for memory or
 * time (and any other end) only says it needed more than it used (a censored lower bound).
 */
const OUTCOMES: Record<JobState, JobOutcomeKind> = {
  COMPLETED: "completed",
  OUT_OF_MEMORY: "oom",
  TIMEOUT: "timeout",
  CANCELLED: "cancelled",
  FAILED: "failed",
  NODE_FAIL: "failed",
  PREEMPTED: "failed",
};

/**
 * The key a job's user has in the feature state. Users (and executables) are namespaced by
 * cluster: `alice` on two clusters runs on different machines and is learned separately.
 */
export function historyUser(cluster: string, user: string): string {
  return `${cluster}/${user}`;
}

/**
 * A scheduler category (partition, QOS) as the number the feature row holds: numeric names (SWF
 * queue numbers) as they are, other names as a stable 24-bit hash so trees can still split on them.
 */
export function categoryCode(name: string | undefined): string | undefined {
  if (name === undefined || name === "") return undefined;
  if (/^\d{1,7}$/.test(name)) return name;
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return String(10_000_000 + ((h >>> 0) & 0xffffff));
}

function requestedOf(spec: JobSpec): JobQuantities {
  const r = spec.requested;
  const out: JobQuantities = {};
  if (r.memoryBytes !== undefined) out.memoryBytes = r.memoryBytes;
  if (r.cores !== undefined) out.cores = r.cores;
  if (r.gpus !== undefined) out.gpus = r.gpus;
  if (r.gpuMemoryBytes !== undefined) out.gpuMemoryBytes = r.gpuMemoryBytes;
  if (r.walltimeSeconds !== undefined) out.walltimeSeconds = r.walltimeSeconds;
  return out;
}

/**
 * A job about to be submitted, as the feature code sees it: the same mapping as
 * {@link storedJobToHistoryJob} minus what only the end tells.
 *
 * @example
 * ```ts
 * const job = specToHistoryJob(request.spec, Date.now() / 1000);
 * ```
 */
export function specToHistoryJob(spec: JobSpec, submitTime: number, id = "pending"): HistoryJob {
  const exe = spec.executable ?? (spec.jobName !== undefined ? `name:${spec.jobName}` : undefined);
  const job: HistoryJob = {
    id,
    submitTime,
    startTime: submitTime,
    endTime: submitTime,
    user: historyUser(spec.cluster, spec.user),
    requested: requestedOf(spec),
    used: {},
    outcome: "completed",
  };
  if (spec.account !== undefined) job.group = spec.account;
  if (exe !== undefined) job.executable = `${spec.cluster}/${exe}`;
  const queue = categoryCode(spec.qos);
  const partition = categoryCode(spec.partition);
  if (queue !== undefined) job.queue = queue;
  if (partition !== undefined) job.partition = partition;
  return job;
}

/**
 * A stored, ended job as a {@link HistoryJob}: requests from the spec, usage from the measured
 * peaks (run time from the peaks or the start and end), the end state mapped to an outcome
 * (`COMPLETED` exact; `OUT_OF_MEMORY`, `TIMEOUT` and every other end censored).
 *
 * @example
 * ```ts
 * const history = storedJobs.map(storedJobToHistoryJob);
 * ```
 */
export function storedJobToHistoryJob(job: StoredJob): HistoryJob {
  const out = specToHistoryJob(job.spec, job.submittedAt, `${job.cluster}/${job.jobId}`);
  const start = job.startedAt ?? job.submittedAt;
  const p = job.peaks ?? {};
  const run =
    p.runTimeSeconds ??
    (job.endedAt !== undefined && job.startedAt !== undefined ? job.endedAt - start : undefined);
  out.startTime = start;
  out.endTime = job.endedAt ?? start + (run ?? 0);
  const used: JobQuantities = {};
  if (p.memoryBytes !== undefined) used.memoryBytes = p.memoryBytes;
  const cores =
    p.coresUsed ??
    (p.cpuTimeSeconds !== undefined && run !== undefined && run > 0 ? p.cpuTimeSeconds / run : undefined);
  if (cores !== undefined) used.cores = cores;
  if (p.gpusUsed !== undefined) used.gpus = p.gpusUsed;
  if (p.gpuMemoryBytes !== undefined) used.gpuMemoryBytes = p.gpuMemoryBytes;
  if (run !== undefined) used.walltimeSeconds = run;
  out.used = used;
  out.outcome = outcomeOf(job);
  return out;
}

/**
 * The outcome, with memory kills the scheduler did not name: SLURM without cgroups (its
 * accounting poll kills a job over `--mem`) records FAILED or CANCELLED with signal 9, never
 * OUT_OF_MEMORY. A job SIGKILLed after its measured peak passed its memory request was killed
 * for memory.
 */
function outcomeOf(job: StoredJob): JobOutcomeKind {
  if (!job.state) return "failed";
  const asked = job.spec.requested.memoryBytes;
  const peak = job.peaks?.memoryBytes;
  if ((job.state === "FAILED" || job.state === "CANCELLED") && killedForMemory(job.signal, peak, asked)) {
    return "oom";
  }
  return OUTCOMES[job.state];
}
