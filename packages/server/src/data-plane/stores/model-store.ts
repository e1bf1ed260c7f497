import type { ResourceName } from "@jobsight/schemas";
import { query, type SqlPool, withTransaction } from "../storage/database.js";

/** Where a model stands: in service, replaced, refused at training, or taken out by a rollback. */
export type ModelStatus = "active" | "retired" | "rejected" | "rolled_back";

/**
 * A row of the `models` table. The backtest figures and the decision are the intelligence plane's
 * JSON, stored as they are.
 */
export type StoredModel<Backtest, Decision> = {
  version: string;
  createdAt: string;
  status: ModelStatus;
  /** `schedule`, `demand`, `startup`, `cli`. */
  trigger: string;
  manifestSha256: string;
  resources: ResourceName[];
  trainingJobs: number;
  dataStart?: string;
  dataEnd?: string;
  backtest: Backtest;
  decision: Decision;
  trainSeconds?: number;
  activatedAt?: string;
};

type Row<B, D> = {
  version: string;
  created_at: string;
  status: ModelStatus;
  trigger: string;
  manifest_sha256: string;
  resources: ResourceName[];
  training_jobs: number;
  data_start: string | null;
  data_end: string | null;
  backtest: B;
  decision: D;
  train_seconds: number | null;
  activated_at: string | null;
};

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COLUMNS = `version, ${ISO("created_at")} AS created_at, status, trigger, manifest_sha256, resources,
  training_jobs, ${ISO("data_start")} AS data_start, ${ISO("data_end")} AS data_end, backtest, decision,
  train_seconds, ${ISO("activated_at")} AS activated_at`;

function toRecord<B, D>(r: Row<B, D>): StoredModel<B, D> {
  const out: StoredModel<B, D> = {
    version: r.version,
    createdAt: r.created_at,
    status: r.status,
    trigger: r.trigger,
    manifestSha256: r.manifest_sha256,
    resources: r.resources,
    trainingJobs: r.training_jobs,
    backtest: r.backtest,
    decision: r.decision,
  };
  if (r.data_start) out.dataStart = r.data_start;
  if (r.data_end) out.dataEnd = r.data_end;
  if (r.train_seconds !== null) out.trainSeconds = r.train_seconds;
  if (r.activated_at) out.activatedAt = r.activated_at;
  return out;
}

/**
 * The `models` table: one row per trained version with its training data range, backtest figures,
 * the decision taken on it, and which one is active (at most one). The files are in the object
 * store (see the intelligence plane's model registry).
 *
 * @example
 * ```ts
 * const models = new ModelStore<Figures, Decision>(pool);
 * const active = await models.active();
 * ```
 */
export class ModelStore<B, D> {
  constructor(private readonly pool: SqlPool) {}

  /**
   * Records a trained model; when `activate`, it becomes the active one and the previous active
   * model is retired, in one transaction.
   */
  async record(
    model: Omit<StoredModel<B, D>, "createdAt" | "activatedAt" | "status">,
    activate: boolean,
  ): Promise<void> {
    await withTransaction(this.pool, async (client) => {
      if (activate) await client.query("UPDATE models SET status = 'retired' WHERE status = 'active'");
      await client.query(
        `INSERT INTO models (version, status, trigger, manifest_sha256, resources, training_jobs, data_start,
           data_end, backtest, decision, train_seconds, activated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $2 = 'active' THEN now() END)`,
        [
          model.version,
          activate ? "active" : "rejected",
          model.trigger,
          model.manifestSha256,
          model.resources,
          model.trainingJobs,
          model.dataStart ?? null,
          model.dataEnd ?? null,
          JSON.stringify(model.backtest),
          JSON.stringify(model.decision),
          model.trainSeconds ?? null,
        ],
      );
    });
  }

  /** The active model's row, if any. */
  async active(): Promise<StoredModel<B, D> | undefined> {
    const { rows } = await query<Row<B, D>>(
      this.pool,
      `SELECT ${COLUMNS} FROM models WHERE status = 'active'`,
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** One model's row, or `undefined`. */
  async get(version: string): Promise<StoredModel<B, D> | undefined> {
    const { rows } = await query<Row<B, D>>(this.pool, `SELECT ${COLUMNS} FROM models WHERE version = $1`, [
      version,
    ]);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Every model, newest first. */
  async list(limit = 100): Promise<StoredModel<B, D>[]> {
    const { rows } = await query<Row<B, D>>(
      this.pool,
      `SELECT ${COLUMNS} FROM models ORDER BY created_at DESC, version DESC LIMIT $1`,
      [limit],
    );
    return rows.map(toRecord);
  }

  /**
   * Puts the model that was active before the current one back into service; the current one is
   * marked `rolled_back`. Returns the version now active, or `undefined` when there is nothing to
   * go back to.
   */
  async rollback(): Promise<string | undefined> {
    return withTransaction(this.pool, async (client) => {
      const current = await client.query<{ version: string; activated_at: string }>(
        "SELECT version, activated_at FROM models WHERE status = 'active' FOR UPDATE",
      );
      const now = current.rows[0];
      const previous = await client.query<{ version: string }>(
        `SELECT version FROM models WHERE status = 'retired' AND activated_at IS NOT NULL
           AND ($1::timestamptz IS NULL OR activated_at < $1::timestamptz)
         ORDER BY activated_at DESC LIMIT 1 FOR UPDATE`,
        [now?.activated_at ?? null],
      );
      const back = previous.rows[0]?.version;
      if (!back) return undefined;
      if (now)
        await client.query("UPDATE models SET status = 'rolled_back' WHERE version = $1", [now.version]);
      await client.query("UPDATE models SET status = 'active', activated_at = now() WHERE version = $1", [
        back,
      ]);
      return back;
    });
  }

  /**
   * Puts `version` into service, whatever its status; the active model (if another) is retired,
   * so a rollback goes back to it. Returns the version that was active before (`previous`
   * undefined when none was), or `undefined` when no model has this version. Promoting the active
   * model changes nothing.
   */
  async promote(version: string): Promise<{ previous: string | undefined } | undefined> {
    return withTransaction(this.pool, async (client) => {
      const target = await client.query<{ status: ModelStatus }>(
        "SELECT status FROM models WHERE version = $1 FOR UPDATE",
        [version],
      );
      if (!target.rows[0]) return undefined;
      if (target.rows[0].status === "active") return { previous: version };
      const current = await client.query<{ version: string }>(
        "UPDATE models SET status = 'retired' WHERE status = 'active' RETURNING version",
      );
      await client.query("UPDATE models SET status = 'active', activated_at = now() WHERE version = $1", [
        version,
      ]);
      return { previous: current.rows[0]?.version };
    });
  }
}
