import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import { migrate } from "../../../src/data-plane/storage/migrator.js";
import {
  ensureApiTokenSchema,
  PostgresApiTokenStore,
} from "../../../src/data-plane/stores/postgres-api-token-store.js";
import { TokenStore } from "../../../src/data-plane/stores/token-store.js";
import { ApiTokens } from "../../../src/platform/identity/api-tokens.js";
import { TokenError } from "../../../src/platform/identity/token-error.js";

// Scoped API tokens against a real PostgreSQL: what is stored, verification, revocation, and the
// schema function living next to the core migration's table of the same name.

describe("PostgresApiTokenStore", () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase("api_tokens");
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    await Promise.all([ensureApiTokenSchema(pool), ensureApiTokenSchema(pool)]);
  });

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it("stores the hash, prefix, role, cluster and times, never the token", async () => {
    const tokens = new ApiTokens(new PostgresApiTokenStore(pool));
    const { token, record } = await tokens.issue({ role: "collector", cluster: "hpc1", label: "nodes" });
    const { rows } = await pool.query("SELECT * FROM api_tokens WHERE id = $1", [record.id]);
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice(12));
    expect(rows[0]).toMatchObject({
      prefix: token.slice(0, 12),
      token_sha256: record.tokenSha256,
      role: "collector",
      cluster: "hpc1",
      user_name: "",
      label: "nodes",
      revoked_at: null,
    });
    expect(rows[0].created_at).toBeInstanceOf(Date);
  });

  it("verifies, lists and revokes", async () => {
    const tokens = new ApiTokens(new PostgresApiTokenStore(pool));
    const { token, record } = await tokens.issue({ role: "scheduler", cluster: "k8s-a", user: "svc-sched" });
    await expect(tokens.verify(token)).resolves.toMatchObject({
      principal: { user: "svc-sched", roles: ["scheduler"], clusters: ["k8s-a"] },
    });
    expect((await tokens.list()).map((r) => r.id)).toContain(record.id);
    expect(await tokens.revoke(record.id)).toBe(true);
    expect(await tokens.revoke(record.id)).toBe(false);
    const error = await tokens.verify(token).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenError);
    expect((error as TokenError).reason).toBe("TOKEN_REVOKED");
    const [row] = (await tokens.list()).filter((r) => r.id === record.id);
    expect(row.revokedAt).toBeInstanceOf(Date);
  });

  it("treats hostile values as data", async () => {
    const tokens = new ApiTokens(new PostgresApiTokenStore(pool));
    const label = "x'); DROP TABLE api_tokens; --";
    const { token } = await tokens.issue({ role: "collector", cluster: "c'--", label });
    await expect(tokens.verify(token)).resolves.toMatchObject({ record: { label, cluster: "c'--" } });
    const store = new PostgresApiTokenStore(pool);
    expect(await store.findByPrefix("' OR '1'='1")).toEqual([]);
  });

  it("completes the core migration's api_tokens table and works on it", async () => {
    const migrated = await createTestDatabase("api_tokens_core");
    const corePool = new pg.Pool({ connectionString: migrated.url, max: 2 });
    try {
      await migrate(corePool, { timescale: "off" });
      await ensureApiTokenSchema(corePool);
      await ensureApiTokenSchema(corePool);
      const tokens = new ApiTokens(new PostgresApiTokenStore(corePool));
      const { token, record } = await tokens.issue({ role: "collector", cluster: "hpc1" });
      await expect(tokens.verify(token)).resolves.toMatchObject({ principal: { clusters: ["hpc1"] } });
      // The data plane's own look-up by hash sees the same token, and its revocation.
      const core = new TokenStore(corePool);
      await expect(core.findByHash(record.tokenSha256)).resolves.toEqual({
        id: record.id,
        role: "collector",
        user: "",
        cluster: "hpc1",
      });
      await tokens.revoke(record.id);
      await expect(core.findByHash(record.tokenSha256)).resolves.toBeUndefined();
    } finally {
      await corePool.end();
      await migrated.drop();
    }
  });
});
