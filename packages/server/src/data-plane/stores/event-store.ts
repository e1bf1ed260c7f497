import { createHash } from "node:crypto";
import type { IngestResult, NodeEvent } from "@jobsight/schemas";
import type pg from "pg";
import { copyRows } from "../copy/copy-rows.js";
import { query, withTransaction } from "../storage/database.js";

const COLUMNS = ["cluster", "dedupe_key", "node", "time", "kind", "job_id", "event"] as const;
const STAGING = "node_events_staging";
const CREATE_STAGING = `CREATE TEMP TABLE IF NOT EXISTS ${STAGING} (
  cluster text NOT NULL, dedupe_key text NOT NULL, node text NOT NULL, time timestamptz NOT NULL,
  kind text NOT NULL, job_id text, event jsonb NOT NULL
) ON COMMIT DELETE ROWS`;
const INSERT = `INSERT INTO node_events (${COLUMNS.join(", ")})
  SELECT ${COLUMNS.join(", ")} FROM ${STAGING} ON CONFLICT DO NOTHING`;

/**
 * The identity of an event for deduplication: the sender's idempotency key when it gave one,
 * otherwise a hash of what the event says (its time normalised, so `…00Z` and `…00.000Z` agree).
 *
 * @example
 * ```ts
 * eventDedupeKey({ ...event, idempotencyKey: "node7-kmsg-1234" }); // "k:node7-kmsg-1234"
 * ```
 */
export function eventDedupeKey(event: NodeEvent): string {
  if (event.idempotencyKey) return `k:${event.idempotencyKey}`;
  const { idempotencyKey: _, ...content } = event;
  const canonical = JSON.stringify(sortKeys({ ...content, time: new Date(event.time).toISOString() }));
  return `h:${createHash("sha256").update(canonical).digest("hex")}`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}

/** Node events (GPU Xid, OOM kills, unavailable sources): stored once, read per job. */
export class EventStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Stores events exactly once (resends are duplicates); resolves after COMMIT.
   *
   * @example
   * ```ts
   * const { accepted } = await events.insert(batch.events);
   * ```
   */
  insert(events: readonly NodeEvent[]): Promise<IngestResult> {
    if (events.length === 0) return Promise.resolve({ accepted: 0, duplicates: 0 });
    return withTransaction(this.pool, async (client) => {
      await client.query(CREATE_STAGING);
      await copyRows(
        client,
        STAGING,
        COLUMNS,
        events.map((e) => [e.cluster, eventDedupeKey(e), e.node, e.time, e.kind, e.jobId, e]),
      );
      const accepted = (await client.query(INSERT)).rowCount ?? 0;
      return { accepted, duplicates: events.length - accepted };
    });
  }

  /** The events attributed to a job, oldest first. */
  async forJob(cluster: string, jobId: string): Promise<NodeEvent[]> {
    const { rows } = await query<{ event: NodeEvent }>(
      this.pool,
      "SELECT event FROM node_events WHERE cluster = $1 AND job_id = $2 ORDER BY time, dedupe_key LIMIT 10000",
      [cluster, jobId],
    );
    return rows.map((r) => r.event);
  }

  /** The events of a node in `[from, to)`, oldest first (for diagnosis of node-wide faults). */
  async forNode(cluster: string, node: string, from: string, to: string): Promise<NodeEvent[]> {
    const { rows } = await query<{ event: NodeEvent }>(
      this.pool,
      `SELECT event FROM node_events WHERE cluster = $1 AND node = $2 AND time >= $3::timestamptz AND time < $4::timestamptz
       ORDER BY time, dedupe_key LIMIT 10000`,
      [cluster, node, from, to],
    );
    return rows.map((r) => r.event);
  }
}
