// The alerts page's rows as text: live alerts and the log of actions under policy, from
// GET /v1/alerts and GET /v1/alerts/actions (the API already narrows a researcher to their own jobs).
import { formatDuration, formatTime } from "./format.js";

/** What each live rule means, in a few words. */
export const RULE_LABELS = {
  "gpus-idle": "GPUs reserved and idle",
  "memory-near-limit": "Memory near its limit",
  "cores-idle": "CPU cores reserved and idle",
  "walltime-overrun": "Will run past its walltime",
  "repeated-oom": "Killed for memory again and again",
};

/** What an action does (`kind`) and how it ended (`outcome`), as the log reads. */
const ACTIONS = {
  "cancel-job": {
    done: "Cancelled the job",
    "dry-run": "Would have cancelled the job",
    failed: "Tried to cancel the job",
  },
  "hold-submission": {
    done: "Held the next submission",
    "dry-run": "Would have held the next submission",
    failed: "Tried to hold the next submission",
  },
};

const OUTCOMES = {
  done: { label: "done", badge: "ok" },
  "dry-run": { label: "dry run", badge: "info" },
  failed: { label: "failed", badge: "error" },
};

const seconds = (from, to) => (Date.parse(to) - Date.parse(from)) / 1000;

/**
 * The firing alerts, critical first, then most recently seen: who, which rule, since when, how
 * long it held, when the limit is projected (memory, walltime), and the evidence as the API gives it.
 */
export function alertRows(alerts, now = new Date().toISOString()) {
  return alerts
    .filter((a) => a.state === "firing")
    .sort(
      (a, b) =>
        (a.severity === "critical" ? 0 : 1) - (b.severity === "critical" ? 0 : 1) ||
        Date.parse(b.lastSeen) - Date.parse(a.lastSeen),
    )
    .map((a) => ({
      id: a.id,
      severity: a.severity,
      badge: a.severity === "critical" ? "error" : "warning",
      rule: RULE_LABELS[a.rule] ?? a.rule,
      job: { jobId: a.jobId, cluster: a.cluster },
      user: a.user,
      since: formatTime(a.firstSeen),
      held: formatDuration(seconds(a.firstSeen, a.lastSeen)),
      lastSeen: formatTime(a.lastSeen),
      projected: a.projectedAt ? projected(a.projectedAt, now) : "–",
      message: a.message,
      evidence: a.evidence,
    }));
}

function projected(at, now) {
  const left = seconds(now, at);
  return left > 0 ? `${formatTime(at)} (in ${formatDuration(left)})` : `${formatTime(at)} (passed)`;
}

/**
 * The audit log, newest first: what was done or, in dry-run, would have been done, to which job,
 * on which rule, how long after the warning, why, and the scheduler's answer when it failed.
 */
export function actionRows(actions) {
  return [...actions]
    .sort((a, b) => Date.parse(b.at) - Date.parse(a.at))
    .map((a) => ({
      id: a.id,
      at: formatTime(a.at),
      what: ACTIONS[a.kind]?.[a.outcome] ?? `${a.kind} (${a.outcome})`,
      outcome: OUTCOMES[a.outcome]?.label ?? a.outcome,
      badge: OUTCOMES[a.outcome]?.badge ?? "info",
      job: { jobId: a.jobId, cluster: a.cluster },
      user: a.user,
      rule: RULE_LABELS[a.rule] ?? a.rule,
      warned: a.warnedAt
        ? `${formatTime(a.warnedAt)} (${formatDuration(seconds(a.warnedAt, a.at))} before)`
        : "–",
      executor: a.executor,
      message: a.message,
      detail: a.detail ?? "",
      evidence: a.evidence,
    }));
}
