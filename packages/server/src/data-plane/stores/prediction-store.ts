import type { JobSpec, Prediction, ResourcePrediction } from "@jobsight/schemas";
import type pg from "pg";
import { copyBinary, copyBinaryRow, copyBinaryText, copyBinaryTimestamp } from "../copy/copy-binary.js";
import { Utf8Writer } from "../copy/utf8-writer.js";
import { query, withConnection, withTransaction } from "../storage/database.js";
import { isUniqueViolation } from "../storage/pg-errors.js";

/**
 * The model's own outcome for one resource, as the accuracy report scores it: rounded for the
 * scheduler, before the policy; no evidence or prose (the served `resources` keep those).
 */
export type ScoredOutcome = {
  resource: ResourcePrediction["resource"];
  status: ResourcePrediction["status"];
  value?: number;
  low?: number;
  high?: number;
  requested?: number;
};

/** The {@link ScoredOutcome} of a wire prediction. */
export function scoredOutcome(r: ResourcePrediction): ScoredOutcome {
  const out: ScoredOutcome = { resource: r.resource, status: r.status };
  if (r.requested !== undefined) out.requested = r.requested;
  if (r.status === "ok") {
    out.value = r.value;
    // Only a range of a stated level is judged for coverage (a recent kill's bound is not one).
    if (r.nominalLevel !== undefined) {
      if (r.low !== undefined) out.low = r.low;
      if (r.high !== undefined) out.high = r.high;
    }
  }
  return out;
}

/** A prediction as recorded: what the caller got, and in full what was predicted. */
export type RecordedPrediction = {
  /** The answer as the caller got it (no resources in shadow mode). */
  answer: Prediction;
  /** Every resource as served after the policy, even when the caller saw none (shadow). */
  resources: ResourcePrediction[];
  /** `resources` as JSON text, when it was serialised already (the record stores that text). */
  resourcesJson?: string;
  /** The model's own outcome per resource, rounded, before the policy: what accuracy is judged on. */
  recommendations: ScoredOutcome[];
  /** `recommendations` as JSON text, when it was serialised already. */
  recommendationsJson?: string;
  spec: JobSpec;
  /** `spec` as JSON text, when it was serialised already. */
  specJson?: string;
  /**
   * Any object shared by the records whose rows are the same apart from id and idempotency key
   * (the requests for one job in one batch): the store encodes that part once for all of them.
   */
  sameRowAs?: object;
  /**
   * The answer's JSON after its id (`AnswerJson.tail`), when it was encoded already (once
   * for every request for the same job in a batch).
   */
  answerTail?: Uint8Array;
  linkKey: string;
  /** The user of the token that asked. */
  requestedBy: string;
  idempotencyKey?: string;
};

/** What the accuracy report reads of a recorded prediction. */
export type PredictionForAccuracy = {
  id: string;
  createdAt: number;
  cluster: string;
  partition?: string;
  linkKey: string;
  submitTime?: number;
  recommendations: ScoredOutcome[];
};

const COLUMNS = [
  "id",
  "created_at",
  "mode",
  "model_version",
  "cluster",
  "user_name",
  "partition",
  "link_key",
  "submit_time",
  "spec",
  "resources",
  "recommendations",
  "shadow_until",
  "notice",
  "requested_by",
  "idempotency_key",
];
const STAGING = "predictions_staging";

/** A document as stored: the JSON text already made for it, else serialised now. */
function jsonText(text: string | undefined, value: unknown): string {
  return text ?? JSON.stringify(value);
}

/**
 * The fields of a prediction's row between its id and its idempotency key, in the binary COPY
 * format. The documents go in as the JSON text the answer was made from when there is one.
 */
function writeMiddle(out: Utf8Writer, p: RecordedPrediction): void {
  copyBinaryTimestamp(out, p.answer.createdAt);
  copyBinaryText(out, p.answer.mode);
  copyBinaryText(out, p.answer.modelVersion);
  copyBinaryText(out, p.answer.cluster);
  copyBinaryText(out, p.answer.user);
  copyBinaryText(out, p.spec.partition);
  copyBinaryText(out, p.linkKey);
  copyBinaryTimestamp(out, p.spec.submitTime);
  copyBinaryText(out, jsonText(p.specJson, p.spec));
  copyBinaryText(out, jsonText(p.resourcesJson, p.resources));
  copyBinaryText(out, jsonText(p.recommendationsJson, p.recommendations));
  copyBinaryTimestamp(out, p.answer.shadowUntil);
  copyBinaryText(out, p.answer.notice);
  copyBinaryText(out, p.requestedBy);
}

/**
 * Appends a prediction's row of `predictions` (every column, in order) in the binary COPY
 * format; the middle is encoded once for the records that share a `sameRowAs`.
 *
 * @example
 * ```ts
 * const out = new Utf8Writer(4096);
 * writePredictionRow(out, recorded);
 * await insertPredictionRows(pool, out.bytes(), { mayRepeat: true });
 * ```
 */
export function writePredictionRow(out: Utf8Writer, p: RecordedPrediction): void {
  copyBinaryRow(out, COLUMNS.length);
  copyBinaryText(out, p.answer.id);
  if (p.sameRowAs === undefined) writeMiddle(out, p);
  else {
    let middle = middles.get(p.sameRowAs);
    if (!middle) {
      middle = encodeMiddle(p);
      middles.set(p.sameRowAs, middle);
    }
    out.writeBytes(middle);
  }
  copyBinaryText(out, p.idempotencyKey);
}

/** Rows of {@link writePredictionRow} for several predictions, in one buffer. */
export function predictionRows(items: readonly RecordedPrediction[]): Buffer {
  const out = new Utf8Writer(items.length * PREDICTION_LINE_BYTES);
  for (const p of items) writePredictionRow(out, p);
  return out.bytes();
}

// The encoded middles of rows by their `sameRowAs`, so that each is encoded once per job.
const middles = new WeakMap<object, Buffer>();

function encodeMiddle(p: RecordedPrediction): Buffer {
  // One writer for every middle, each copied out at once (see docs/performance.md).
  tails ??= new Utf8Writer(PREDICTION_LINE_BYTES);
  tails.reset();
  writeMiddle(tails, p);
  return Buffer.from(tails.bytes());
}

let tails: Utf8Writer | undefined;

/** About how long one prediction's COPY row is (its spec and served resources as JSON), to size buffers. */
export const PREDICTION_LINE_BYTES = 3072;

/**
 * Writes predictions given as rows of {@link writePredictionRow} (one buffer or several, whole
 * rows each) in one transaction. Rows that cannot be there already (fresh ids, no idempotency
 * key: `mayRepeat` false) are copied straight into the table; a batch with a sender's key, or
 * one that may have been committed before (a retry after a lost answer), goes through a staging
 * table and one insert that skips what is there (the first answer of a key stands). A straight
 * copy that meets a row already there is redone that way.
 */
export async function insertPredictionRows(
  pool: pg.Pool,
  rows: Uint8Array | readonly Uint8Array[],
  options: { mayRepeat: boolean } = { mayRepeat: true },
): Promise<void> {
  if (rows.length === 0) return;
  if (!options.mayRepeat) {
    try {
      // One COPY is atomic by itself: no BEGIN and COMMIT, two round trips fewer per write.
      await withConnection(pool, (client) => copyBinary(client, "predictions", COLUMNS, rows));
      return;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  await withTransaction(pool, async (client) => {
    await client.query(
      `CREATE TEMP TABLE IF NOT EXISTS ${STAGING} (LIKE predictions INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`,
    );
    await copyBinary(client, STAGING, COLUMNS, rows);
    await client.query(
      `INSERT INTO predictions (${COLUMNS.join(", ")}) SELECT ${COLUMNS.join(", ")} FROM ${STAGING} ON CONFLICT DO NOTHING`,
    );
  });
}

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

type AnswerRow = {
  id: string;
  created_at: string;
  mode: Prediction["mode"];
  model_version: string;
  cluster: string;
  user_name: string;
  resources: ResourcePrediction[];
  shadow_until: string | null;
  notice: string | null;
};

function toAnswer(r: AnswerRow): Prediction {
  const p: Prediction = {
    id: r.id,
    createdAt: r.created_at,
    mode: r.mode,
    modelVersion: r.model_version,
    cluster: r.cluster,
    user: r.user_name,
    resources: r.mode === "shadow" ? [] : r.resources,
  };
  if (r.shadow_until) p.shadowUntil = r.shadow_until;
  if (r.notice) p.notice = r.notice;
  return p;
}

const ANSWER_COLUMNS = `id, ${ISO("created_at")} AS created_at, mode, model_version, cluster, user_name, resources::json AS resources,
  ${ISO("shadow_until")} AS shadow_until, notice`;
const ANSWER = `SELECT ${ANSWER_COLUMNS} FROM predictions`;
const ANSWER_AND_KEY = `SELECT ${ANSWER_COLUMNS}, idempotency_key FROM predictions`;

/** A recorded prediction as its caller got it, or undefined. */
export async function findPrediction(pool: pg.Pool, id: string): Promise<Prediction | undefined> {
  const { rows } = await query<AnswerRow>(pool, `${ANSWER} WHERE id = $1`, [id]);
  return rows[0] ? toAnswer(rows[0]) : undefined;
}

/** A sender's idempotency key: unique per cluster and user. */
export type IdempotencyRef = { cluster: string; user: string; key: string };

/** The predictions recorded for idempotency keys (in order; undefined where there is none), in one query. */
export async function findIdempotentPredictions(
  pool: pg.Pool,
  refs: readonly IdempotencyRef[],
): Promise<(Prediction | undefined)[]> {
  if (refs.length === 0) return [];
  const { rows } = await query<AnswerRow & { idempotency_key: string }>(
    pool,
    `${ANSWER_AND_KEY}
     WHERE (cluster, user_name, idempotency_key) IN (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`,
    [refs.map((r) => r.cluster), refs.map((r) => r.user), refs.map((r) => r.key)],
  );
  const found = new Map(
    rows.map((r) => [`${r.cluster}\u0000${r.user_name}\u0000${r.idempotency_key}`, toAnswer(r)]),
  );
  return refs.map((r) => found.get(`${r.cluster}\u0000${r.user}\u0000${r.key}`));
}

/** Predictions made since `fromSeconds` (Unix), optionally of one cluster, oldest first. */
export async function predictionsSince(
  pool: pg.Pool,
  fromSeconds: number,
  cluster: string | undefined,
  limit: number,
): Promise<PredictionForAccuracy[]> {
  const { rows } = await query<{
    id: string;
    created: number;
    cluster: string;
    partition: string | null;
    link_key: string;
    submit: number | null;
    recommendations: ScoredOutcome[];
  }>(
    pool,
    `SELECT id, extract(epoch FROM created_at)::float8 AS created, cluster, partition, link_key,
       extract(epoch FROM submit_time)::float8 AS submit, recommendations::json AS recommendations
     FROM predictions WHERE created_at >= to_timestamp($1) AND ($2::text IS NULL OR cluster = $2)
     ORDER BY created_at LIMIT $3`,
    [fromSeconds, cluster ?? null, limit],
  );
  return rows.map((r) => {
    const p: PredictionForAccuracy = {
      id: r.id,
      createdAt: r.created,
      cluster: r.cluster,
      linkKey: r.link_key,
      recommendations: r.recommendations,
    };
    if (r.partition !== null) p.partition = r.partition;
    if (r.submit !== null) p.submitTime = r.submit;
    return p;
  });
}
