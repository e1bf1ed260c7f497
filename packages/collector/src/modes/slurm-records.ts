import type { JobRecord, JobStep } from "@jobsight/schemas/light";
import { expandHostlist } from "./hostlist.js";
import {
  type ExitInfo,
  exitFromSacct,
  exitFromWaitStatus,
  isoTime,
  num,
  resourcesFromTres,
  type SlurmPhase,
  slurmPhase,
  str,
  tresFromList,
  tresFromString,
} from "./slurm-json.js";
import type { OutputPatterns } from "./slurm-output-patterns.js";
import { stderrPathOf } from "./slurm-stderr.js";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});

/**
 * A record built from SLURM JSON, whether its exit code still needs checking with `sacct -P`, and
 * where the job wrote its stderr (sacct only).
 */
export type SlurmRecord = { record: JobRecord; exitTrusted: boolean; stderrPath?: string };

function stepId(v: unknown, jobId: string): string {
  const s = typeof v === "number" ? String(v) : (str(v) ?? "?");
  // Newer versions print "1234.batch"; 22.05 prints "batch" or 0.
  return s.startsWith(`${jobId}.`) ? s.slice(jobId.length + 1) : s;
}

function applyExit(target: { exitCode?: number; signal?: number }, exit: ExitInfo): void {
  if (exit.signal !== undefined && exit.signal >= 1 && exit.signal <= 64) target.signal = exit.signal;
  else if (exit.exitCode !== undefined) target.exitCode = exit.exitCode;
}

function arrayInfo(
  arrayJobId: unknown,
  taskId: unknown,
): NonNullable<JobRecord["spec"]["array"]> | undefined {
  const id = num(arrayJobId);
  const task = num(taskId);
  if (!id || task === undefined) return undefined;
  return { arrayJobId: String(id), taskId: task };
}

/**
 * Turn one job of `sacct --json` into a {@link JobRecord}: state, exit code or signal, requested
 * and allocated TRES (memory MB → bytes), time limit (minutes → seconds), elapsed time, per-step
 * MaxRSS (bytes) and the largest of them as the job's peak memory. `known` are the job's output
 * patterns from squeue, for finding its stderr where sacct records no path (22.05).
 *
 * @example
 * ```ts
 * const { record } = recordFromSacct(json.jobs[0], "hpc1");
 * ```
 */
export function recordFromSacct(job: Json, cluster: string, known?: OutputPatterns): SlurmRecord | undefined {
  const id = num(job.job_id);
  if (id === undefined) return undefined;
  const jobId = String(id);
  const phase: SlurmPhase = slurmPhase(job.state) ?? { phase: "submitted" };
  const time = obj(job.time);
  const limit = num(time.limit);
  const tres = obj(job.tres);
  const requested = resourcesFromTres(tresFromList(tres.requested), limit);
  const allocated = resourcesFromTres(tresFromList(tres.allocated), limit);
  const record: JobRecord = {
    cluster,
    jobId,
    phase: phase.phase,
    source: "slurm-controller",
    spec: {
      cluster,
      scheduler: "slurm",
      user: str(job.user) ?? str(obj(job.association).user) ?? "unknown",
      requested,
    },
    submittedAt: isoTime(time.submission) ?? new Date(0).toISOString(),
  };
  const spec = record.spec;
  const account = str(job.account);
  if (account) spec.account = account;
  const partition = str(job.partition);
  if (partition) spec.partition = partition;
  const qos = str(job.qos);
  if (qos) spec.qos = qos;
  const name = str(job.name);
  if (name) spec.jobName = name.slice(0, 512);
  const array = arrayInfo(obj(job.array).job_id, obj(job.array).task_id);
  if (array) spec.array = array;
  spec.submitTime = record.submittedAt;
  const started = isoTime(time.start);
  if (started && phase.phase !== "submitted") record.startedAt = started;
  if (Object.keys(allocated).length > 0 && phase.phase !== "submitted") record.allocated = allocated;
  const nodes = str(job.nodes);
  if (nodes && nodes !== "None assigned") record.nodes = expandHostlist(nodes).slice(0, 4096);

  let exitTrusted = true;
  if (phase.phase === "ended") {
    const endedAt = isoTime(time.end);
    if (endedAt) record.endedAt = endedAt;
    const outcome: NonNullable<JobRecord["outcome"]> = { state: phase.state };
    const exit = exitFromSacct(job.exit_code, phase.state);
    exitTrusted = exit.trusted;
    if (exit.trusted) applyExit(outcome, exit);
    const reason = str(obj(job.state).reason);
    if (reason && reason !== "None") outcome.reason = reason.slice(0, 1024);
    applyDerivedExit(outcome, exitFromSacct(job.derived_exit_code));
    record.outcome = outcome;
  }

  const steps: JobStep[] = [];
  let peak: number | undefined;
  for (const s of Array.isArray(job.steps) ? (job.steps as Json[]) : []) {
    const step: JobStep = { stepId: stepId(obj(s.step).id, jobId).slice(0, 128) };
    const sp = slurmPhase(s.state);
    if (sp?.phase === "ended") step.state = sp.state;
    applyExit(step, exitFromSacct(s.exit_code));
    const maxRss = tresFromList(obj(obj(s.tres).requested).max).get("mem");
    if (maxRss !== undefined) {
      step.maxRssBytes = Math.round(maxRss);
      peak = Math.max(peak ?? 0, step.maxRssBytes);
    }
    const elapsed = num(obj(s.time).elapsed);
    if (elapsed !== undefined) step.elapsedSeconds = elapsed;
    steps.push(step);
  }
  if (steps.length > 0) record.steps = steps.slice(0, 1024);

  const elapsed = num(time.elapsed);
  const total = obj(time.total);
  const cpu = (num(total.seconds) ?? 0) + (num(total.microseconds) ?? 0) / 1e6;
  const peaks: NonNullable<JobRecord["peaks"]> = {};
  if (peak !== undefined) peaks.memoryBytes = peak;
  if (elapsed !== undefined && phase.phase !== "submitted") peaks.runTimeSeconds = elapsed;
  if (cpu > 0) {
    peaks.cpuTimeSeconds = cpu;
    if (elapsed) peaks.coresUsed = cpu / elapsed;
  }
  if (Object.keys(peaks).length > 0) record.peaks = peaks;
  const stderrPath = phase.phase === "ended" ? stderrPathOf(job, spec.user, known) : undefined;
  return { record, exitTrusted, ...(stderrPath ? { stderrPath } : {}) };
}

// DerivedExitCode (the highest of the steps') matters only when it says more than "0": 22.05's JSON
// prints 0 for exit codes it lost, so a 0 there is no evidence of success.
function applyDerivedExit(outcome: NonNullable<JobRecord["outcome"]>, exit: ExitInfo): void {
  if (exit.signal !== undefined && exit.signal >= 1 && exit.signal <= 64) outcome.derivedSignal = exit.signal;
  else if (exit.exitCode !== undefined && exit.exitCode > 0) outcome.derivedExitCode = exit.exitCode;
}

/**
 * Turn one job of `squeue --json` into a {@link JobRecord}. squeue's `exit_code` is the raw wait
 * status (256 = exit 1, 9 = killed by signal 9), which is right where sacct's JSON is not.
 *
 * @example
 * ```ts
 * const { record } = recordFromSqueue(json.jobs[0], "hpc1");
 * ```
 */
export function recordFromSqueue(job: Json, cluster: string): SlurmRecord | undefined {
  const id = num(job.job_id);
  if (id === undefined) return undefined;
  const phase = slurmPhase(job.job_state) ?? { phase: "submitted" as const };
  const limit = num(job.time_limit);
  const requested = resourcesFromTres(tresFromString(job.tres_req_str), limit);
  const record: JobRecord = {
    cluster,
    jobId: String(id),
    phase: phase.phase,
    source: "slurm-controller",
    spec: {
      cluster,
      scheduler: "slurm",
      user: str(job.user_name) ?? String(num(job.user_id) ?? "unknown"),
      requested,
    },
    submittedAt: isoTime(job.submit_time) ?? new Date(0).toISOString(),
  };
  const spec = record.spec;
  for (const [key, field, max] of [
    ["account", "account", 128],
    ["partition", "partition", 128],
    ["qos", "qos", 128],
    ["jobName", "name", 512],
    ["executable", "command", 1024],
  ] as const) {
    const v = str(job[field]);
    if (v) spec[key] = v.slice(0, max);
  }
  const array = arrayInfo(job.array_job_id, job.array_task_id);
  if (array) spec.array = array;
  spec.submitTime = record.submittedAt;
  if (phase.phase !== "submitted") {
    const started = isoTime(job.start_time);
    if (started) record.startedAt = started;
    const allocated = resourcesFromTres(tresFromString(job.tres_alloc_str), limit);
    if (Object.keys(allocated).length > 0) record.allocated = allocated;
    const nodes = str(job.nodes);
    if (nodes) record.nodes = expandHostlist(nodes).slice(0, 4096);
  }
  if (phase.phase === "ended") {
    const endedAt = isoTime(job.end_time);
    if (endedAt) record.endedAt = endedAt;
    const outcome: NonNullable<JobRecord["outcome"]> = { state: phase.state };
    const raw = job.exit_code;
    applyExit(outcome, typeof raw === "number" ? exitFromWaitStatus(raw) : exitFromSacct(raw, phase.state));
    const reason = str(job.state_reason);
    if (reason && reason !== "None") outcome.reason = reason.slice(0, 1024);
    record.outcome = outcome;
  }
  return { record, exitTrusted: true };
}
