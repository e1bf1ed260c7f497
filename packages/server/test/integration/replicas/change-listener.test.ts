import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangeListener, type SharedChange } from "../../../src/data-plane/storage/change-listener.js";
import { openTestStorage, type StorageFixture } from "../storage-fixture.js";

// The notifications of migration 0013 on a real PostgreSQL: a replica hears of a model or policy
// changed by another as soon as its transaction commits, and after a lost connection hears `*`.

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

describe("change listener", () => {
  let fx: StorageFixture;
  let listener: ChangeListener;
  const heard: SharedChange[] = [];

  beforeAll(async () => {
    fx = await openTestStorage("changes");
    listener = new ChangeListener(fx.storage.pool, { intervalMs: 100 });
    listener.on((change) => heard.push(change));
    await listener.check();
    expect(listener.listening).toBe(true);
  });

  afterAll(async () => {
    await listener?.stop();
    await fx?.dispose();
  });

  it("hears a model activated and a policy set, once per transaction, only after commit", async () => {
    const pool = fx.storage.pool;
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(
        `INSERT INTO models (version, status, trigger, manifest_sha256, resources, training_jobs, backtest, decision)
         VALUES ('v1', 'active', 'test', $1, '{}', 0, '{}', '{}')`,
        ["a".repeat(64)],
      );
      await client.query("UPDATE models SET status = 'retired' WHERE version = 'v1'");
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual([]);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    await waitFor(() => heard.length > 0);
    await pool.query(`INSERT INTO policies (policy, set_by) VALUES ('{}', 'ops')`);
    await waitFor(() => heard.length > 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(heard).toEqual(["models", "policies"]);
  });

  it("reconnects after its session is killed and reports that anything may have changed", async () => {
    heard.length = 0;
    await fx.storage.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN jobsight_changes'",
    );
    listener.start();
    await waitFor(() => heard.includes("*"));
    expect(heard).toEqual(["*"]);
    await fx.storage.pool.query(`INSERT INTO policies (policy, set_by) VALUES ('{}', 'ops')`);
    await waitFor(() => heard.length > 1);
    expect(heard).toEqual(["*", "policies"]);
  });
});
