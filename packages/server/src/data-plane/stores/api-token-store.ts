import type { Role } from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../storage/database.js";

/** A stored API token: never the token itself, only its sha256 (and a prefix to recognise it by). */
export type ApiTokenRecord = {
  /** Stable id, used to revoke and named in logs. */
  id: string;
  /** Lower-case hex sha256 of the whole token (`hashApiToken`). */
  tokenSha256: string;
  role: Role;
  /** The one cluster the token acts on; absent: every cluster (platform and researcher tokens). */
  cluster?: string;
  /** The user the token acts as, if any (e.g. the scheduler's service account). */
  user?: string;
  /** The token's first characters (`jst_` and 8 more), to recognise it in listings. */
  prefix?: string;
  /** A note for people, e.g. "slurmctld on hpc1". */
  label?: string;
  createdAt: Date;
  revokedAt?: Date;
};

/** Where token records live. Implementations: {@link PostgresApiTokenStore}, `InMemoryApiTokenStore` (tests). */
export interface ApiTokenStore {
  /** Stores a new record. */
  insert(record: ApiTokenRecord): Promise<void>;
  /** The record (live or revoked) of the token with this sha256, or `undefined`. */
  findByHash(tokenSha256: string): Promise<ApiTokenRecord | undefined>;
  /** Marks the token revoked at `at`; `true` if it was live. */
  revoke(id: string, at: Date): Promise<boolean>;
  /** Every record (live or revoked), newest first. */
  list(): Promise<ApiTokenRecord[]>;
}

type Row = {
  id: string;
  token_sha256: string;
  role: Role;
  cluster: string | null;
  user_name: string;
  prefix: string | null;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
};

const COLUMNS = "id, token_sha256, role, cluster, user_name, prefix, label, created_at, revoked_at";

/**
 * The `api_tokens` table (see the migrations `0001-core.sql` and `0006-api-tokens.sql`), with
 * parameterised statements only. A token without a user is stored with `user_name = ''`.
 *
 * @example
 * ```ts
 * const store = new PostgresApiTokenStore(pool);
 * const record = await store.findByHash(hashApiToken(token));
 * ```
 */
export class PostgresApiTokenStore implements ApiTokenStore {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async insert(record: ApiTokenRecord): Promise<void> {
    await query(
      this.#pool,
      `INSERT INTO api_tokens (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        record.id,
        record.tokenSha256,
        record.role,
        record.cluster ?? null,
        record.user ?? "",
        record.prefix ?? null,
        record.label ?? null,
        record.createdAt,
        record.revokedAt ?? null,
      ],
    );
  }

  async findByHash(tokenSha256: string): Promise<ApiTokenRecord | undefined> {
    const { rows } = await query<Row>(
      this.#pool,
      `SELECT ${COLUMNS} FROM api_tokens WHERE token_sha256 = $1`,
      [tokenSha256],
    );
    return rows[0] && toRecord(rows[0]);
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const { rowCount } = await query(
      this.#pool,
      "UPDATE api_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
      [id, at],
    );
    return (rowCount ?? 0) > 0;
  }

  async list(): Promise<ApiTokenRecord[]> {
    const { rows } = await query<Row>(
      this.#pool,
      `SELECT ${COLUMNS} FROM api_tokens ORDER BY created_at DESC, id`,
    );
    return rows.map(toRecord);
  }
}

function toRecord(row: Row): ApiTokenRecord {
  return {
    id: row.id,
    tokenSha256: row.token_sha256,
    role: row.role,
    ...(row.cluster ? { cluster: row.cluster } : {}),
    ...(row.user_name ? { user: row.user_name } : {}),
    ...(row.prefix ? { prefix: row.prefix } : {}),
    ...(row.label ? { label: row.label } : {}),
    createdAt: row.created_at,
    ...(row.revoked_at ? { revokedAt: row.revoked_at } : {}),
  };
}
