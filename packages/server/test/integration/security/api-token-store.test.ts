import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import { loadMigrations } from "../../../src/data-plane/storage/migration-files.js";
import { migrate } from "../../../src/data-plane/storage/migrator.js";
import { PostgresApiTokenStore } from "../../../src/data-plane/stores/api-token-store.js";
import { hashApiToken } from "../../../src/platform/identity/api-token-hash.js";
import { ApiTokenVerifier } from "../../../src/platform/identity/api-token-verifier.js";
import { ApiTokens, generateApiToken } from "../../../src/platform/identity/api-tokens.js";
import { TokenError } from "../../../src/platform/identity/token-error.js";

// API tokens against a real PostgreSQL migrated by the migrations alone: what is stored, look-up
// by hash, revocation seen by the verifier on the next request, and the upgrade of a table that
// older servers completed from TypeScript at start.

describe("PostgresApiTokenStore", () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let store: PostgresApiTokenStore;

  beforeAll(async () => {
    db = await createTestDatabase("api_tokens");
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    await migrate(pool, { timescale: "off" });
    store = new PostgresApiTokenStore(pool);
  });

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it("stores the hash, prefix, role, cluster and times, never the token", async () => {
    const tokens = new ApiTokens(store);
    const { token, record } = await tokens.issue({ role: "collector", cluster: "hpc1", label: "nodes" });
    const { rows } = await pool.query("SELECT * FROM api_tokens WHERE id = $1", [record.id]);
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice(12));
    expect(rows[0]).toMatchObject({
      prefix: token.slice(0, 12),
      token_sha256: hashApiToken(token),
      role: "collector",
      cluster: "hpc1",
      user_name: "",
      label: "nodes",
      revoked_at: null,
    });
    expect(rows[0].created_at).toBeInstanceOf(Date);
  });

  it("finds a token by its hash, lists it and revokes it once", async () => {
    const tokens = new ApiTokens(store);
    const { token, record } = await tokens.issue({ role: "scheduler", cluster: "k8s-a", user: "svc-sched" });
    await expect(store.findByHash(hashApiToken(token))).resolves.toEqual(record);
    expect((await tokens.list()).map((r) => r.id)).toContain(record.id);
    expect(await tokens.revoke(record.id)).toBe(true);
    expect(await tokens.revoke(record.id)).toBe(false);
    const revoked = await store.findByHash(record.tokenSha256);
    expect(revoked?.revokedAt).toBeInstanceOf(Date);
    expect((await tokens.list()).find((r) => r.id === record.id)?.revokedAt).toEqual(revoked?.revokedAt);
    await expect(store.findByHash(hashApiToken(generateApiToken().token))).resolves.toBeUndefined();
  });

  it("keeps a token of any role, without prefix, user or cluster, as written", async () => {
    const { token, tokenSha256 } = generateApiToken();
    const record = { id: "platform-ops", tokenSha256, role: "platform" as const, createdAt: new Date() };
    await store.insert(record);
    await expect(store.findByHash(hashApiToken(token))).resolves.toEqual(record);
  });

  it("is refused by the verifier on the next request after a revocation from another process", async () => {
    const verifier = new ApiTokenVerifier({ store });
    const { token, record } = await new ApiTokens(store).issue({ role: "collector", cluster: "hpc1" });
    await expect(verifier.verify(token)).resolves.toMatchObject({ role: "collector", cluster: "hpc1" });
    // Another pool on the same database: `jobsight-server token revoke` in its own process.
    const other = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      expect(await new ApiTokens(new PostgresApiTokenStore(other)).revoke(record.id)).toBe(true);
    } finally {
      await other.end();
    }
    const error = await verifier.verify(token).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenError);
    expect((error as TokenError).reason).toBe("TOKEN_REVOKED");
  });

  it("treats hostile values as data", async () => {
    const tokens = new ApiTokens(store);
    const label = "x'); DROP TABLE api_tokens; --";
    const { token } = await tokens.issue({ role: "collector", cluster: "c1", label });
    await expect(store.findByHash(hashApiToken(token))).resolves.toMatchObject({ label, cluster: "c1" });
    // The issuer refuses such a cluster id; the store keeps one written directly as it is.
    await expect(tokens.issue({ role: "collector", cluster: "c'--" })).rejects.toThrow(/is not a cluster id/);
    const hostile = generateApiToken();
    await store.insert({
      id: "hostile",
      tokenSha256: hostile.tokenSha256,
      role: "collector",
      cluster: "c'--",
      createdAt: new Date(),
    });
    await expect(store.findByHash(hostile.tokenSha256)).resolves.toMatchObject({ cluster: "c'--" });
    expect(await store.findByHash("' OR '1'='1")).toBeUndefined();
    expect(await store.revoke("' OR '1'='1", new Date())).toBe(false);
  });

  it("takes over the table older servers completed at start, keeping their tokens", async () => {
    const older = await createTestDatabase("api_tokens_older");
    const olderPool = new pg.Pool({ connectionString: older.url, max: 2 });
    try {
      const all = await loadMigrations();
      await migrate(olderPool, { timescale: "off", migrations: all.filter((m) => m.version < 6) });
      // What an older server ran at every start, and a token it issued.
      await olderPool.query("ALTER TABLE api_tokens ADD COLUMN IF NOT EXISTS prefix text");
      await olderPool.query("ALTER TABLE api_tokens ADD COLUMN IF NOT EXISTS label text");
      await olderPool.query("CREATE INDEX IF NOT EXISTS api_tokens_by_prefix ON api_tokens (prefix)");
      const { token, prefix, tokenSha256 } = generateApiToken();
      await olderPool.query(
        `INSERT INTO api_tokens (token_sha256, id, prefix, role, user_name, cluster, label)
         VALUES ($1, 'old', $2, 'collector', '', 'hpc1', 'rack 1')`,
        [tokenSha256, prefix],
      );

      const later = all.filter((m) => m.version >= 6).map((m) => m.version);
      expect((await migrate(olderPool, { timescale: "off" })).applied).toEqual(later);
      expect((await migrate(olderPool, { timescale: "off" })).applied).toEqual([]);
      const verifier = new ApiTokenVerifier({ store: new PostgresApiTokenStore(olderPool) });
      await expect(verifier.verify(token)).resolves.toEqual({
        role: "collector",
        user: "api-token:old",
        cluster: "hpc1",
        tokenId: "api-token:old",
        via: "api-token",
      });
      const { rows } = await olderPool.query(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'api_tokens'",
      );
      expect(rows.map((r) => r.indexname).sort()).toEqual(["api_tokens_id_key", "api_tokens_pkey"]);
    } finally {
      await olderPool.end();
      await older.drop();
    }
  });
});
