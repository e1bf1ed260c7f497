import { hash, randomBytes } from "node:crypto";
import type { Role } from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../storage/database.js";

/** A scoped API token as stored (never the token itself, only its sha256). */
export type ApiTokenRecord = {
  id: string;
  role: Role;
  user: string;
  cluster?: string;
};

/**
 * sha256 hex of a token (its UTF-8 bytes): how tokens are stored and looked up. Asked on every
 * authenticated request (rate limit, verification): one-shot `hash` is ~3× cheaper than a Hash object.
 */
export function hashToken(token: string): string {
  return hash("sha256", token, "hex");
}

/** API tokens in the database: created (shown once), looked up by hash, revoked. */
export class TokenStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Creates a token and returns it; only its hash is stored, so this is the one time it is seen.
   *
   * @example
   * ```ts
   * const { token } = await tokens.create({ id: "collector-hpc1", role: "collector", user: "svc-collector", cluster: "hpc1" });
   * ```
   */
  async create(record: ApiTokenRecord): Promise<{ token: string; record: ApiTokenRecord }> {
    const token = `jst_${randomBytes(32).toString("base64url")}`;
    await query(
      this.pool,
      "INSERT INTO api_tokens (token_sha256, id, role, user_name, cluster) VALUES ($1, $2, $3, $4, $5)",
      [hashToken(token), record.id, record.role, record.user, record.cluster ?? null],
    );
    return { token, record };
  }

  /** The live (not revoked) token with this hash, or `undefined`. */
  async findByHash(tokenSha256: string): Promise<ApiTokenRecord | undefined> {
    const { rows } = await query<{
      id: string;
      role: Role;
      user_name: string | null;
      cluster: string | null;
    }>(
      this.pool,
      "SELECT id, role, user_name, cluster FROM api_tokens WHERE token_sha256 = $1 AND revoked_at IS NULL",
      [tokenSha256],
    );
    const row = rows[0];
    if (!row) return undefined;
    // Machine tokens may have no user (the security module's schema allows it): they act as their id.
    return {
      id: row.id,
      role: row.role,
      user: row.user_name ?? row.id,
      ...(row.cluster ? { cluster: row.cluster } : {}),
    };
  }

  /** Revokes a token by id; `true` if it was live. */
  async revoke(id: string): Promise<boolean> {
    const { rowCount } = await query(
      this.pool,
      "UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL",
      [id],
    );
    return (rowCount ?? 0) > 0;
  }
}
