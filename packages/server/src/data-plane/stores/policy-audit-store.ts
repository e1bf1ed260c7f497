import type pg from "pg";
import { InvalidCursorError } from "../../errors.js";
import { query } from "../storage/database.js";
import type { PolicyAuditRecord, PolicyAuditSink } from "./policy-audit-record.js";

/** What to look for in the audit; every field narrows the result. */
export type PolicyAuditQuery = {
  cluster?: string;
  user?: string;
  /** From this time, inclusive. */
  from?: Date | string;
  /** Until this time, exclusive. */
  to?: Date | string;
  /** @default 100, at most 1000 */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
};

/** One page of audit records, newest first. */
export type PolicyAuditPage = { items: PolicyAuditRecord[]; nextCursor: string | null };

const INSERT = `
INSERT INTO policy_audit (recorded_at, cluster, actor, user_name, submitted_by, job, resource, before_value,
  after_value, model_version, policy_name, limited_by, adjustments, mode, prediction_id)
SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
  $8::double precision[], $9::double precision[], $10::text[], $11::text[], $12::text[], $13::jsonb[], $14::text[],
  $15::text[])`;

// Every filter is a parameter that may be NULL: one fixed statement, no SQL assembled from input.
const SELECT = `
SELECT id::text, recorded_at, cluster, actor, user_name, submitted_by, job, resource, before_value, after_value,
  model_version, policy_name, limited_by, adjustments, mode, prediction_id
FROM policy_audit
WHERE ($1::text IS NULL OR cluster = $1)
  AND ($2::text IS NULL OR user_name = $2)
  AND ($3::timestamptz IS NULL OR recorded_at >= $3)
  AND ($4::timestamptz IS NULL OR recorded_at < $4)
  AND ($5::timestamptz IS NULL OR (recorded_at, id) < ($5, $6::bigint))
ORDER BY recorded_at DESC, id DESC
LIMIT $7`;

type Row = {
  id: string;
  recorded_at: Date;
  cluster: string;
  actor: PolicyAuditRecord["actor"];
  user_name: string;
  submitted_by: string | null;
  job: string;
  resource: PolicyAuditRecord["resource"];
  before_value: number | null;
  after_value: number;
  model_version: string;
  policy_name: string;
  limited_by: PolicyAuditRecord["limitedBy"];
  adjustments: PolicyAuditRecord["adjustments"];
  mode: PolicyAuditRecord["mode"];
  prediction_id: string | null;
};

/**
 * The audit of every change applied under a policy, in PostgreSQL.
 *
 * @example
 * ```ts
 * const audit = new PolicyAuditStore(pool);
 * await audit.record(auditRecordsFor(decision, context));
 * const { items } = await audit.query({ cluster: "hpc1", user: "alice", from: "2026-12-01T00:00:00Z" });
 * ```
 */
export class PolicyAuditStore implements PolicyAuditSink {
  constructor(private readonly pool: pg.Pool) {}

  /** Store records, all in one statement. */
  async record(records: readonly PolicyAuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    const column = <T>(pick: (r: PolicyAuditRecord) => T) => records.map(pick);
    await query(this.pool, INSERT, [
      column((r) => r.recordedAt),
      column((r) => r.cluster),
      column((r) => r.actor),
      column((r) => r.user),
      column((r) => r.submittedBy ?? null),
      column((r) => r.job),
      column((r) => r.resource),
      column((r) => r.before),
      column((r) => r.after),
      column((r) => r.modelVersion),
      column((r) => r.policy),
      column((r) => r.limitedBy),
      column((r) => JSON.stringify(r.adjustments)),
      column((r) => r.mode),
      column((r) => r.predictionId ?? null),
    ]);
  }

  /**
   * Records matching the query, newest first, one page at a time.
   * @throws {InvalidCursorError} for a cursor this store did not issue.
   */
  async query(q: PolicyAuditQuery = {}): Promise<PolicyAuditPage> {
    const limit = Math.min(Math.max(1, Math.floor(q.limit ?? 100)), 1000);
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    const { rows } = await query<Row>(this.pool, SELECT, [
      q.cluster ?? null,
      q.user ?? null,
      q.from === undefined ? null : new Date(q.from),
      q.to === undefined ? null : new Date(q.to),
      after?.at ?? null,
      after?.id ?? null,
      limit + 1,
    ]);
    const items = rows.slice(0, limit).map(toRecord);
    const last = items.at(-1);
    const nextCursor = rows.length > limit && last ? encodeCursor(last.recordedAt, last.id!) : null;
    return { items, nextCursor };
  }
}

function toRecord(row: Row): PolicyAuditRecord {
  const record: PolicyAuditRecord = {
    id: row.id,
    recordedAt: row.recorded_at.toISOString(),
    cluster: row.cluster,
    actor: row.actor,
    user: row.user_name,
    job: row.job,
    resource: row.resource,
    before: row.before_value,
    after: row.after_value,
    modelVersion: row.model_version,
    policy: row.policy_name,
    limitedBy: row.limited_by,
    adjustments: row.adjustments,
    mode: row.mode,
  };
  if (row.submitted_by !== null) record.submittedBy = row.submitted_by;
  if (row.prediction_id !== null) record.predictionId = row.prediction_id;
  return record;
}

function encodeCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString("base64url");
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    const date = new Date(String(at));
    if (
      typeof at !== "string" ||
      Number.isNaN(date.getTime()) ||
      typeof id !== "string" ||
      !/^\d{1,19}$/.test(id)
    )
      throw new InvalidCursorError();
    return { at: date, id };
  } catch {
    throw new InvalidCursorError();
  }
}
