import type { JobOutcome, JobPhase, JobRecord, JobState, JobStep } from "@jobsight/schemas/light";
import { parseQuantity } from "@jobsight/schemas/light";
import type { V1ContainerStateTerminated, V1ContainerStatus, V1Pod } from "@kubernetes/client-node";
import { jobSpecFromPod } from "./kubernetes-pod-spec.js";
import { podContainerIds } from "./pod-container-ids.js";

/** What the pod's Events said about it, used where its status does not say why it ended. */
export type PodHints = {
  /** `Preempted` (scheduler) or `Preempting`: the message. */
  preempted?: string;
  /** `Evicted` (kubelet): the message. */
  evicted?: string;
  /** The last warning (`FailedScheduling`, `BackOff`, …) as `reason: message`. */
  lastWarning?: string;
};

/** Options of {@link recordFromPod}. */
export type PodRecordOptions = {
  /** The pod is gone (a watch `DELETED`, or missing from a relist). @default false */
  deleted?: boolean;
  hints?: PodHints;
  /** Earlier runs of restarted containers, as collected by {@link previousRunSteps}. */
  previousRuns?: JobStep[];
  /** Clock, for the end of a deleted pod that says nothing of when. @default Date.now */
  now?: () => number;
};

/**
 * An RFC 3339 time from what the client gives: `Date` objects from typed list calls, strings from
 * watch events.
 */
export function isoTime(v: unknown): string | undefined {
  const ms = v instanceof Date ? v.getTime() : typeof v === "string" ? Date.parse(v) : Number.NaN;
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : undefined;
}

const bounded = (text: string, n: number) => (text.length <= n ? text : text.slice(0, n));

// DisruptionTarget condition reasons (Kubernetes 1.26+) and pod status reasons.
const PREEMPTION = new Set([
  "PreemptionByScheduler",
  "PreemptionByKubeScheduler",
  "EvictionByEvictionAPI",
  "TerminationByKubelet",
  "Evicted",
  "Preempting",
]);
const NODE_LOSS = new Set([
  "DeletionByTaintManager",
  "DeletionByPodGC",
  "NodeLost",
  "NodeShutdown",
  "Shutdown",
]);

/** The lifecycle phase of a pod, or undefined while Kubernetes does not know (`Unknown`). */
export function podPhase(pod: V1Pod, deleted = false): JobPhase | undefined {
  switch (pod.status?.phase) {
    case "Succeeded":
    case "Failed":
      return "ended";
    case "Running":
      return deleted ? "ended" : "started";
    case "Pending":
    case undefined:
      return deleted ? "ended" : "submitted";
    default:
      return deleted ? "ended" : undefined;
  }
}

function statuses(pod: V1Pod): { init: boolean; status: V1ContainerStatus }[] {
  return [
    ...(pod.status?.initContainerStatuses ?? []).map((status) => ({ init: true, status })),
    ...(pod.status?.containerStatuses ?? []).map((status) => ({ init: false, status })),
  ];
}

function stateOfTermination(t: V1ContainerStateTerminated): JobState {
  if (t.reason === "OOMKilled") return "OUT_OF_MEMORY";
  if (t.reason === "DeadlineExceeded") return "TIMEOUT";
  return t.exitCode === 0 ? "COMPLETED" : "FAILED";
}

function applyExit(target: { exitCode?: number; signal?: number }, t: V1ContainerStateTerminated): void {
  if (typeof t.signal === "number" && t.signal >= 1 && t.signal <= 64) target.signal = t.signal;
  else if (t.reason === "OOMKilled") target.signal = 9;
  else if (Number.isInteger(t.exitCode) && t.exitCode >= 0 && t.exitCode <= 255) target.exitCode = t.exitCode;
}

function stepOf(stepId: string, t: V1ContainerStateTerminated, memoryLimit: number | undefined): JobStep {
  const step: JobStep = { stepId: bounded(stepId, 128), state: stateOfTermination(t) };
  applyExit(step, t);
  const from = isoTime(t.startedAt);
  const to = isoTime(t.finishedAt);
  if (from && to && to >= from) step.elapsedSeconds = (Date.parse(to) - Date.parse(from)) / 1000;
  if (memoryLimit !== undefined) step.memoryLimitBytes = Math.ceil(memoryLimit);
  return step;
}

function memoryLimits(pod: V1Pod): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const limit = parseQuantity(c.resources?.limits?.memory);
    if (limit !== undefined) out.set(c.name, limit);
  }
  return out;
}

/**
 * Steps for the runs of restarted containers the pod still shows (`lastState.terminated`): the
 * container's run number `restartCount` (its first run is 1), as `<container>.run-<n>`. The
 * collector gathers them while it watches, so a pod that was OOM-killed twice before it
 * succeeded keeps both kills.
 *
 * @example
 * ```ts
 * previousRunSteps(pod); // [{ stepId: "train.run-2", state: "OUT_OF_MEMORY", signal: 9, … }]
 * ```
 */
export function previousRunSteps(pod: V1Pod): JobStep[] {
  const limits = memoryLimits(pod);
  const out: JobStep[] = [];
  for (const { status } of statuses(pod)) {
    const t = status.lastState?.terminated;
    if (!t || !(status.restartCount > 0)) continue;
    out.push(stepOf(`${status.name}.run-${status.restartCount}`, t, limits.get(status.name)));
  }
  return out;
}

function endOf(pod: V1Pod, now: () => number): string {
  let end: string | undefined;
  for (const { status } of statuses(pod)) {
    const t = isoTime(status.state?.terminated?.finishedAt);
    if (t && (!end || t > end)) end = t;
  }
  return end ?? isoTime(pod.metadata?.deletionTimestamp) ?? new Date(now()).toISOString();
}

/**
 * How a pod ended, from its phase, status reason, `DisruptionTarget` condition, container
 * terminations and, where those say nothing, its Events.
 *
 * @example
 * ```ts
 * podOutcome(failedPod, false); // { state: "FAILED", exitCode: 1, reason: "Error (container etl)" }
 * ```
 */
export function podOutcome(pod: V1Pod, deleted: boolean, hints: PodHints = {}): JobOutcome {
  const status = pod.status ?? {};
  const terminations = statuses(pod).flatMap(({ init, status: s }) =>
    s.state?.terminated ? [{ init, name: s.name, t: s.state.terminated }] : [],
  );
  const podReason = status.reason
    ? bounded(`${status.reason}${status.message?.trim() ? `: ${status.message.trim()}` : ""}`, 1024)
    : undefined;
  if (status.phase === "Succeeded") return { state: "COMPLETED", exitCode: 0 };
  if (status.reason === "DeadlineExceeded") return { state: "TIMEOUT", reason: podReason };
  const oom = terminations.find((x) => x.t.reason === "OOMKilled");
  if (oom) {
    const outcome: JobOutcome = { state: "OUT_OF_MEMORY", reason: "OOMKilled" };
    applyExit(outcome, oom.t);
    return outcome;
  }
  const disruption = (status.conditions ?? []).find(
    (c) => c.type === "DisruptionTarget" && c.status === "True",
  );
  const disruptionReason = disruption?.reason
    ? bounded(`${disruption.reason}${disruption.message ? `: ${disruption.message}` : ""}`, 1024)
    : undefined;
  if (NODE_LOSS.has(status.reason ?? "") || NODE_LOSS.has(disruption?.reason ?? ""))
    return { state: "NODE_FAIL", reason: podReason ?? disruptionReason };
  if (PREEMPTION.has(status.reason ?? "") || PREEMPTION.has(disruption?.reason ?? ""))
    return { state: "PREEMPTED", reason: podReason ?? disruptionReason };
  if (hints.preempted) return { state: "PREEMPTED", reason: bounded(`Preempted: ${hints.preempted}`, 1024) };
  if (hints.evicted) return { state: "PREEMPTED", reason: bounded(`Evicted: ${hints.evicted}`, 1024) };
  // A pod deleted by someone (kubectl delete, a Job's parallelism cut) ends with SIGTERM: cancelled.
  if (deleted || pod.metadata?.deletionTimestamp) {
    return { state: "CANCELLED", reason: bounded(podReason ?? hints.lastWarning ?? "pod deleted", 1024) };
  }
  const failed =
    terminations.find((x) => x.init && x.t.exitCode !== 0) ?? terminations.find((x) => x.t.exitCode !== 0);
  const outcome: JobOutcome = { state: "FAILED" };
  if (failed) {
    applyExit(outcome, failed.t);
    outcome.reason = bounded(`${failed.t.reason ?? "Error"} (container ${failed.name})`, 1024);
  } else {
    const reason = podReason ?? hints.lastWarning;
    if (reason) outcome.reason = reason;
  }
  return outcome;
}

/**
 * Turn a pod into a {@link JobRecord} for its current phase: `submitted` while Pending, `started`
 * once Running (at `status.startTime`), `ended` once Succeeded or Failed, or deleted. The job id is
 * `<namespace>/<name>`; the outcome maps `OOMKilled` to OUT_OF_MEMORY, the pod's
 * `DeadlineExceeded` to TIMEOUT, evictions and preemptions to PREEMPTED, a deleted pod to
 * CANCELLED and a non-zero exit to FAILED with its code. Undefined while the phase is `Unknown`.
 *
 * @example
 * ```ts
 * recordFromPod(pod, "k8s1")?.outcome; // { state: "OUT_OF_MEMORY", signal: 9, reason: "OOMKilled" }
 * ```
 */
export function recordFromPod(
  pod: V1Pod,
  cluster: string,
  options: PodRecordOptions = {},
): JobRecord | undefined {
  const meta = pod.metadata;
  if (!meta?.name || !meta.namespace) return undefined;
  const phase = podPhase(pod, options.deleted);
  if (!phase) return undefined;
  const now = options.now ?? Date.now;
  const submittedAt = isoTime(meta.creationTimestamp) ?? new Date(now()).toISOString();
  const record: JobRecord = {
    cluster,
    jobId: bounded(`${meta.namespace}/${meta.name}`, 256),
    phase,
    source: "kubernetes",
    spec: jobSpecFromPod(pod, cluster),
    submittedAt,
  };
  record.spec.submitTime = submittedAt;
  const startedAt = isoTime(pod.status?.startTime);
  if (phase !== "submitted" && startedAt) record.startedAt = startedAt;
  if (phase !== "submitted" && pod.spec?.nodeName) record.nodes = [bounded(pod.spec.nodeName, 256)];
  const containerIds = podContainerIds(pod);
  if (containerIds.length > 0) record.containerIds = containerIds;
  if (phase !== "ended") return record;

  record.endedAt = endOf(pod, now);
  record.outcome = podOutcome(pod, options.deleted ?? false, options.hints);
  if (record.outcome.reason === undefined) delete record.outcome.reason;
  if (record.startedAt && record.endedAt >= record.startedAt)
    record.peaks = { runTimeSeconds: (Date.parse(record.endedAt) - Date.parse(record.startedAt)) / 1000 };
  const limits = memoryLimits(pod);
  const steps: JobStep[] = [...(options.previousRuns ?? [])];
  for (const { status } of statuses(pod)) {
    const t = status.state?.terminated;
    if (t) steps.push(stepOf(status.name, t, limits.get(status.name)));
  }
  if (steps.length > 0) record.steps = steps.slice(-1024);
  return record;
}
