import { randomUUID } from "node:crypto";
import type { Alert, AlertRule, AlertState, EvidenceRef } from "@jobsight/schemas";
import type pg from "pg";
import { query, withTransaction } from "../storage/database.js";

/** A rule that holds for a job at one evaluation. */
export type FiringAlert = {
  cluster: string;
  jobId: string;
  user: string;
  rule: AlertRule;
  severity: Alert["severity"];
  message: string;
  evidence: EvidenceRef[];
  projectedAt?: string;
};

/** A firing alert, as the evaluation loop needs it to decide whether it resolved. */
export type FiringKey = { id: string; cluster: string; jobId: string; rule: AlertRule; lastSeen: Date };

/** A firing alert still to be delivered to some channel, with the episode it belongs to. */
export type UndeliveredAlert = Alert & { firedAt: string; deliveredTo: string[] };

/** Alerts written per statement. */
const BATCH = 500;

/** What to list; every field narrows the answer. */
export type AlertListQuery = { cluster?: string; user?: string; state?: AlertState; limit: number };

// Many alerts in one statement; each (job, rule) appears once in a batch, as ON CONFLICT requires.
const UPSERT = `
INSERT INTO alerts AS a (id, cluster, job_id, user_name, rule, severity, state, first_seen, last_seen, fired_at,
  projected_at, message, evidence)
SELECT n.id, n.cluster, n.job_id, n.user_name, n.rule, n.severity, 'firing', $1, $1, $1, n.projected_at, n.message,
  n.evidence
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::text[],
  $10::jsonb[]) AS n(id, cluster, job_id, user_name, rule, severity, projected_at, message, evidence)
ON CONFLICT (cluster, job_id, rule) DO UPDATE SET
  user_name = excluded.user_name, severity = excluded.severity, last_seen = excluded.last_seen,
  projected_at = excluded.projected_at, message = excluded.message, evidence = excluded.evidence,
  fired_at = CASE WHEN a.state = 'resolved' THEN excluded.fired_at ELSE a.fired_at END,
  delivered_to = CASE WHEN a.state = 'resolved' THEN '{}'::text[] ELSE a.delivered_to END,
  resolved_at = NULL, state = 'firing'
RETURNING (xmax = 0) AS inserted`;

const COLUMNS = `id, cluster, job_id, user_name, rule, severity, state, first_seen, last_seen, fired_at, resolved_at,
  projected_at, message, evidence, delivered_to`;

// Every filter is a parameter that may be NULL: one fixed statement, no SQL assembled from input.
const LIST = `SELECT ${COLUMNS} FROM alerts
WHERE ($1::text IS NULL OR cluster = $1)
  AND ($2::text IS NULL OR user_name = $2)
  AND ($3::text IS NULL OR state = $3)
ORDER BY last_seen DESC, id
LIMIT $4`;

const UNDELIVERED = `SELECT ${COLUMNS} FROM alerts
WHERE state = 'firing' AND NOT (delivered_to @> $1::text[])
ORDER BY fired_at, id
LIMIT $2`;

type Row = {
  id: string;
  cluster: string;
  job_id: string;
  user_name: string;
  rule: AlertRule;
  severity: Alert["severity"];
  state: AlertState;
  first_seen: Date;
  last_seen: Date;
  fired_at: Date;
  resolved_at: Date | null;
  projected_at: Date | null;
  message: string;
  evidence: EvidenceRef[];
  delivered_to: string[];
};

function toAlert(r: Row): Alert {
  const alert: Alert = {
    id: r.id,
    cluster: r.cluster,
    jobId: r.job_id,
    user: r.user_name,
    rule: r.rule,
    severity: r.severity,
    state: r.state,
    firstSeen: r.first_seen.toISOString(),
    lastSeen: r.last_seen.toISOString(),
    message: r.message,
    evidence: r.evidence,
  };
  if (r.resolved_at) alert.resolvedAt = r.resolved_at.toISOString();
  if (r.projected_at) alert.projectedAt = r.projected_at.toISOString();
  return alert;
}

/**
 * Live alerts (the `alerts` table): one row per job and rule. A rule that holds updates its row
 * (dedup), one that stops holding resolves it, and the webhook channels record on it which of them
 * were told of the current episode.
 */
export class AlertStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Records that each alert holds at `at`: a new row, the same row's evidence and `lastSeen`
   * updated, or a resolved row firing again (a new episode, to be delivered again). Resolves to the
   * number of rows that were new.
   *
   * @example
   * ```ts
   * await alerts.fire([{ cluster: "hpc1", jobId: "42", user: "alice", rule: "gpus-idle", severity: "warning", message, evidence }], new Date());
   * ```
   */
  async fire(alerts: readonly FiringAlert[], at: Date): Promise<number> {
    if (alerts.length === 0) return 0;
    return withTransaction(this.pool, async (client) => {
      let created = 0;
      for (let i = 0; i < alerts.length; i += BATCH) {
        const batch = alerts.slice(i, i + BATCH);
        const { rows } = await client.query<{ inserted: boolean }>(UPSERT, [
          at,
          batch.map(() => randomUUID()),
          batch.map((a) => a.cluster),
          batch.map((a) => a.jobId),
          batch.map((a) => a.user),
          batch.map((a) => a.rule),
          batch.map((a) => a.severity),
          batch.map((a) => a.projectedAt ?? null),
          batch.map((a) => a.message),
          batch.map((a) => JSON.stringify(a.evidence)),
        ]);
        created += rows.filter((r) => r.inserted).length;
      }
      return created;
    });
  }

  /** The firing alerts, oldest episode first, at most `limit`. */
  async firing(limit = 10_000): Promise<FiringKey[]> {
    const { rows } = await query<{
      id: string;
      cluster: string;
      job_id: string;
      rule: AlertRule;
      last_seen: Date;
    }>(
      this.pool,
      `SELECT id, cluster, job_id, rule, last_seen FROM alerts WHERE state = 'firing' ORDER BY fired_at, id LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({
      id: r.id,
      cluster: r.cluster,
      jobId: r.job_id,
      rule: r.rule,
      lastSeen: r.last_seen,
    }));
  }

  /** Resolves the firing alerts of `ids` at `at`; resolves to how many changed. */
  async resolve(ids: readonly string[], at: Date): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await query(
      this.pool,
      `UPDATE alerts SET state = 'resolved', resolved_at = $2 WHERE id = ANY($1::text[]) AND state = 'firing'`,
      [ids, at],
    );
    return result.rowCount ?? 0;
  }

  /**
   * Alerts most recently seen first.
   *
   * @example
   * ```ts
   * const mine = await alerts.list({ user: "alice", state: "firing", limit: 100 });
   * ```
   */
  async list(q: AlertListQuery): Promise<Alert[]> {
    const { rows } = await query<Row>(this.pool, LIST, [
      q.cluster ?? null,
      q.user ?? null,
      q.state ?? null,
      q.limit,
    ]);
    return rows.map(toAlert);
  }

  /** Firing alerts not yet delivered to every one of `channels`, oldest episode first. */
  async undelivered(channels: readonly string[], limit = 100): Promise<UndeliveredAlert[]> {
    if (channels.length === 0) return [];
    const { rows } = await query<Row>(this.pool, UNDELIVERED, [channels, limit]);
    return rows.map((r) => ({
      ...toAlert(r),
      firedAt: r.fired_at.toISOString(),
      deliveredTo: r.delivered_to,
    }));
  }

  /**
   * Records that `channel` was told of the episode of alert `id` that fired at `firedAt` (a later
   * episode is not marked by a delivery of an earlier one).
   */
  async markDelivered(id: string, firedAt: string, channel: string): Promise<void> {
    await query(
      this.pool,
      `UPDATE alerts SET delivered_to = array_append(delivered_to, $3)
       WHERE id = $1 AND fired_at = $2 AND NOT ($3 = ANY(delivered_to))`,
      [id, firedAt, channel],
    );
  }
}
