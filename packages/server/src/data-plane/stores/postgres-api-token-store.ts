import type pg from "pg";
import type { ApiTokenRecord, ApiTokenRole, ApiTokenStore } from "../../platform/identity/api-tokens.js";

/**
 * The `api_tokens` table. Written to coexist with the table of the core migration (same columns,
 * plus `prefix` and `label`; no user is stored as `''`), so running it after that migration, or
 * twice, changes nothing but what is missing, and the data plane's own hash look-up finds tokens
 * issued here.
 */
export const API_TOKEN_SCHEMA_STATEMENTS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS api_tokens (
    token_sha256 text PRIMARY KEY CHECK (token_sha256 ~ '^[a-f0-9]{64}$'),
    id text NOT NULL UNIQUE,
    prefix text,
    role text NOT NULL CHECK (role IN ('researcher', 'platform', 'collector', 'scheduler')),
    user_name text NOT NULL DEFAULT '',
    cluster text,
    label text,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
  )`,
  "ALTER TABLE api_tokens ADD COLUMN IF NOT EXISTS prefix text",
  "ALTER TABLE api_tokens ADD COLUMN IF NOT EXISTS label text",
  "CREATE INDEX IF NOT EXISTS api_tokens_by_prefix ON api_tokens (prefix)",
];

// Servers starting together must not race on CREATE TABLE IF NOT EXISTS.
const SCHEMA_LOCK_KEY = "7310575185737543801";

/**
 * Creates or completes the `api_tokens` table (idempotent, safe to run concurrently).
 *
 * @example
 * ```ts
 * await ensureApiTokenSchema(pool);
 * const tokens = new ApiTokens(new PostgresApiTokenStore(pool));
 * ```
 */
export async function ensureApiTokenSchema(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [SCHEMA_LOCK_KEY]);
    for (const statement of API_TOKEN_SCHEMA_STATEMENTS) await client.query(statement);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

type Row = {
  id: string;
  prefix: string | null;
  token_sha256: string;
  role: string;
  cluster: string | null;
  user_name: string;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
};

const COLUMNS = "id, prefix, token_sha256, role, cluster, user_name, label, created_at, revoked_at";

/**
 * {@link ApiTokenStore} in PostgreSQL, parameterised statements only. Rows the core migration
 * wrote without a prefix or for other roles are never returned: they cannot be verified here.
 *
 * @example
 * ```ts
 * const store = new PostgresApiTokenStore(pool);
 * await store.findByPrefix("jst_ab12cd34");
 * ```
 */
export class PostgresApiTokenStore implements ApiTokenStore {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async insert(record: ApiTokenRecord): Promise<void> {
    await this.#pool.query(
      `INSERT INTO api_tokens (id, prefix, token_sha256, role, cluster, user_name, label, created_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        record.id,
        record.prefix,
        record.tokenSha256,
        record.role,
        record.cluster,
        record.user ?? "",
        record.label ?? null,
        record.createdAt,
        record.revokedAt ?? null,
      ],
    );
  }

  async findByPrefix(prefix: string): Promise<ApiTokenRecord[]> {
    const { rows } = await this.#pool.query<Row>(
      `SELECT ${COLUMNS} FROM api_tokens WHERE prefix = $1 AND role IN ('collector', 'scheduler')`,
      [prefix],
    );
    return rows.flatMap(toRecord);
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const { rowCount } = await this.#pool.query(
      "UPDATE api_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
      [id, at],
    );
    return (rowCount ?? 0) > 0;
  }

  async list(): Promise<ApiTokenRecord[]> {
    const { rows } = await this.#pool.query<Row>(
      `SELECT ${COLUMNS} FROM api_tokens WHERE prefix IS NOT NULL AND role IN ('collector', 'scheduler')
       ORDER BY created_at DESC, id`,
    );
    return rows.flatMap(toRecord);
  }
}

function toRecord(row: Row): ApiTokenRecord[] {
  if (!row.prefix || !row.cluster) return [];
  return [
    {
      id: row.id,
      prefix: row.prefix,
      tokenSha256: row.token_sha256,
      role: row.role as ApiTokenRole,
      cluster: row.cluster,
      ...(row.user_name ? { user: row.user_name } : {}),
      ...(row.label ? { label: row.label } : {}),
      createdAt: row.created_at,
      ...(row.revoked_at ? { revokedAt: row.revoked_at } : {}),
    },
  ];
}
