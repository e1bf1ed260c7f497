import { randomUUID } from "node:crypto";
import type {
  AlertAction,
  AlertActionKind,
  AlertActionOutcome,
  AlertRule,
  EvidenceRef,
} from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../../storage/database.js";

/** An action to record: the audit entry without its id. */
export type NewAlertAction = Omit<AlertAction, "id" | "at"> & {
  at: Date;
  /** The alert episode (its `fired_at`) or, for a hold, the submission's instant: acted on once. */
  episode: Date;
};

/** What to list; every field narrows the answer. */
export type AlertActionListQuery = { cluster?: string; user?: string; jobId?: string; limit: number };

/** One episode of one job that an action may be taken on. */
export type ActionKey = { cluster: string; jobId: string; kind: AlertActionKind; episode: Date };

const COLUMNS = `id, at, cluster, job_id, user_name, kind, rule, alert_id, outcome, executor, warned_at, message,
  detail, evidence`;

// Every filter is a parameter that may be NULL: one fixed statement, no SQL assembled from input.
const LIST = `SELECT ${COLUMNS} FROM alert_actions
WHERE ($1::text IS NULL OR cluster = $1)
  AND ($2::text IS NULL OR user_name = $2)
  AND ($3::text IS NULL OR job_id = $3)
ORDER BY at DESC, id
LIMIT $4`;

const INSERT = `INSERT INTO alert_actions (${COLUMNS}, episode)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
ON CONFLICT (cluster, job_id, kind, episode) DO NOTHING
RETURNING id`;

const ACTED = `SELECT cluster, job_id, kind, episode FROM alert_actions
WHERE (cluster, job_id, kind, episode) IN (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]))`;

/** A firing alert whose episode is old enough to act on, with what the policy judges the job by. */
export type DueAlert = {
  alertId: string;
  cluster: string;
  jobId: string;
  user: string;
  rule: AlertRule;
  /** When this episode started firing: the warning. */
  firedAt: Date;
  message: string;
  evidence: EvidenceRef[];
  /** From the job's record, when there is one. */
  account?: string;
  partition?: string;
  scheduler?: string;
};

// The job's record decides the scheduler and the policy's account and partition; a job whose
// record says it ended is not acted on.
const DUE = `SELECT a.id, a.cluster, a.job_id, a.user_name, a.rule, a.fired_at, a.message, a.evidence,
  j.account, j.partition, j.record->'spec'->>'scheduler' AS scheduler
FROM alerts a LEFT JOIN jobs j ON j.cluster = a.cluster AND j.job_id = a.job_id
WHERE a.state = 'firing' AND a.rule = $1 AND a.fired_at <= $2 AND a.last_seen >= $4
  AND (j.phase IS NULL OR j.phase <> 'ended')
ORDER BY a.fired_at, a.id
LIMIT $3`;

type Row = {
  id: string;
  at: Date;
  cluster: string;
  job_id: string;
  user_name: string;
  kind: AlertActionKind;
  rule: AlertRule;
  alert_id: string | null;
  outcome: AlertActionOutcome;
  executor: string;
  warned_at: Date | null;
  message: string;
  detail: string | null;
  evidence: EvidenceRef[];
};

function toAction(r: Row): AlertAction {
  const action: AlertAction = {
    id: r.id,
    at: r.at.toISOString(),
    cluster: r.cluster,
    jobId: r.job_id,
    user: r.user_name,
    kind: r.kind,
    rule: r.rule,
    outcome: r.outcome,
    executor: r.executor,
    message: r.message,
    evidence: r.evidence,
  };
  if (r.alert_id !== null) action.alertId = r.alert_id;
  if (r.warned_at !== null) action.warnedAt = r.warned_at.toISOString();
  if (r.detail !== null) action.detail = r.detail;
  return action;
}

/** The key of an action in {@link AlertActionStore.actedOn}'s answer. */
export const actionKey = (k: ActionKey) => `${k.cluster}\u0000${k.jobId}\u0000${k.kind}\u0000${+k.episode}`;

/**
 * The audit log of actions under policy (the `alert_actions` table): every cancellation, hold and
 * dry-run decision, with the evidence it rests on. An episode of a job is acted on at most once.
 */
export class AlertActionStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Records an action; resolves to it, or to `undefined` when that episode of the job already has
   * one (nothing is written then).
   *
   * @example
   * ```ts
   * await actions.record({ cluster: "hpc1", jobId: "42", user: "alice", kind: "cancel-job", rule: "gpus-idle",
   *   outcome: "dry-run", executor: "scancel", message, evidence, at: new Date(), episode: firedAt });
   * ```
   */
  async record(a: NewAlertAction): Promise<AlertAction | undefined> {
    const id = randomUUID();
    const { rows } = await query<{ id: string }>(this.pool, INSERT, [
      id,
      a.at,
      a.cluster,
      a.jobId,
      a.user,
      a.kind,
      a.rule,
      a.alertId ?? null,
      a.outcome,
      a.executor,
      a.warnedAt ?? null,
      a.message,
      a.detail ?? null,
      JSON.stringify(a.evidence),
      a.episode,
    ]);
    if (rows.length === 0) return undefined;
    const { episode: _, at, ...rest } = a;
    return { id, at: at.toISOString(), ...rest };
  }

  /** Which of `keys` already have an action, as {@link actionKey}s. */
  async actedOn(keys: readonly ActionKey[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const { rows } = await query<{ cluster: string; job_id: string; kind: AlertActionKind; episode: Date }>(
      this.pool,
      ACTED,
      [
        keys.map((k) => k.cluster),
        keys.map((k) => k.jobId),
        keys.map((k) => k.kind),
        keys.map((k) => k.episode),
      ],
    );
    return new Set(
      rows.map((r) => actionKey({ cluster: r.cluster, jobId: r.job_id, kind: r.kind, episode: r.episode })),
    );
  }

  /**
   * Firing alerts of `rule` that started firing at or before `firedBefore` and still held at or
   * after `seenSince`, oldest first.
   */
  async dueAlerts(rule: AlertRule, firedBefore: Date, seenSince: Date, limit = 500): Promise<DueAlert[]> {
    const { rows } = await query<{
      id: string;
      cluster: string;
      job_id: string;
      user_name: string;
      rule: AlertRule;
      fired_at: Date;
      message: string;
      evidence: EvidenceRef[];
      account: string | null;
      partition: string | null;
      scheduler: string | null;
    }>(this.pool, DUE, [rule, firedBefore, limit, seenSince]);
    return rows.map((r) => {
      const due: DueAlert = {
        alertId: r.id,
        cluster: r.cluster,
        jobId: r.job_id,
        user: r.user_name,
        rule: r.rule,
        firedAt: r.fired_at,
        message: r.message,
        evidence: r.evidence,
      };
      if (r.account !== null) due.account = r.account;
      if (r.partition !== null) due.partition = r.partition;
      if (r.scheduler !== null) due.scheduler = r.scheduler;
      return due;
    });
  }

  /**
   * Actions newest first.
   *
   * @example
   * ```ts
   * const onMine = await actions.list({ user: "alice", limit: 100 });
   * ```
   */
  async list(q: AlertActionListQuery): Promise<AlertAction[]> {
    const { rows } = await query<Row>(this.pool, LIST, [
      q.cluster ?? null,
      q.user ?? null,
      q.jobId ?? null,
      q.limit,
    ]);
    return rows.map(toAction);
  }
}
