import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import { openDedicatedSession } from "../../../src/data-plane/storage/dedicated-session.js";
import { LEADER_LOCK, LeaderLease } from "../../../src/data-plane/storage/leader-lease.js";

// Two leases on one real PostgreSQL, as two replicas hold them: one leads; when its session dies
// (its process killed, its connection cut) PostgreSQL frees the lock and the other takes over.

describe("leader lease", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function setup(): Promise<{ db: TestDatabase; pools: pg.Pool[]; admin: pg.Pool }> {
    const db = await createTestDatabase("lease");
    const pools = [0, 1].map(
      (i) => new pg.Pool({ connectionString: db.url, max: 2, application_name: `replica-${i}` }),
    );
    const admin = new pg.Pool({ connectionString: db.url, max: 1 });
    cleanup.push(
      () => db.drop(),
      async () => {
        await Promise.all([...pools, admin].map((p) => p.end()));
      },
    );
    return { db, pools, admin };
  }

  function lease(pool: pg.Pool, changes: boolean[] = [], reachable = () => true): LeaderLease {
    const l = new LeaderLease(pool, {
      intervalMs: 100,
      onChange: (leader) => changes.push(leader),
      open: async (p) => {
        if (!reachable()) throw new Error("connect ECONNREFUSED");
        return openDedicatedSession(p);
      },
    });
    cleanup.push(() => l.stop());
    return l;
  }

  // The backends holding the leader lock, by application name.
  async function holders(admin: pg.Pool): Promise<string[]> {
    const { rows } = await admin.query<{ application_name: string }>(
      `SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.objid = $1 AND l.database = (
         SELECT oid FROM pg_database WHERE datname = current_database())`,
      [LEADER_LOCK],
    );
    return rows.map((r) => r.application_name);
  }

  it("gives the lease to one replica only, on a session outside the pool", async () => {
    const { pools, admin } = await setup();
    const [a, b] = [lease(pools[0]), lease(pools[1])];
    expect(await a.attempt()).toBe(true);
    expect(await b.attempt()).toBe(false);
    expect(await a.attempt()).toBe(true);
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    expect(await holders(admin)).toEqual(["replica-0"]);
    // The held session takes no slot of the pool.
    expect(pools[0].totalCount).toBe(0);
  });

  it("hands over when the leader's session is killed, and the old leader steps down", async () => {
    const { pools, admin } = await setup();
    const changesA: boolean[] = [];
    const changesB: boolean[] = [];
    // Replica 0 is cut off from the database for good once its session is killed (its process
    // died, or the network between them did); otherwise it might take the lease straight back.
    let cut = false;
    const [a, b] = [lease(pools[0], changesA, () => !cut), lease(pools[1], changesB)];
    await a.attempt();
    a.start();
    b.start();
    await new Promise((r) => setTimeout(r, 300));
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);

    // What PostgreSQL does when a replica's process dies: the backend ends, its locks go.
    cut = true;
    const killed = await admin.query(
      `SELECT pg_terminate_backend(l.pid) FROM pg_locks l
       WHERE l.locktype = 'advisory' AND l.granted AND l.objid = $1`,
      [LEADER_LOCK],
    );
    expect(killed.rowCount).toBe(1);
    const deadline = Date.now() + 5000;
    while (!b.isLeader && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(b.isLeader).toBe(true);
    expect(a.isLeader).toBe(false);
    expect(await holders(admin)).toEqual(["replica-1"]);
    expect(changesA).toEqual([true, false]);
    expect(changesB).toEqual([true]);
  });

  it("frees the lease at once when the leader stops", async () => {
    const { pools, admin } = await setup();
    const [a, b] = [lease(pools[0]), lease(pools[1])];
    expect(await a.attempt()).toBe(true);
    await a.stop();
    expect(a.isLeader).toBe(false);
    expect(await holders(admin)).toEqual([]);
    expect(await b.attempt()).toBe(true);
  });

  it("keeps trying without throwing while the database cannot be reached", async () => {
    const warnings: string[] = [];
    const pool = new pg.Pool({ connectionString: "postgres://nobody:x@127.0.0.1:1/none", max: 1 });
    cleanup.push(() => pool.end());
    const l = new LeaderLease(pool, {
      intervalMs: 50,
      log: { info: () => {}, warn: (_d, message) => warnings.push(message) },
    });
    cleanup.push(() => l.stop());
    expect(await l.attempt()).toBe(false);
    expect(await l.attempt()).toBe(false);
    // Warned once for the outage, not at every attempt.
    expect(warnings).toEqual(["leader lease: the database session failed; trying again"]);
  });
});
