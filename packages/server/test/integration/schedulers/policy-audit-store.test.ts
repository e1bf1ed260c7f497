import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import { migrate } from "../../../src/data-plane/storage/migrator.js";
import type { PolicyAuditRecord } from "../../../src/data-plane/stores/policy-audit-record.js";
import { PolicyAuditStore } from "../../../src/data-plane/stores/policy-audit-store.js";
import { InvalidCursorError } from "../../../src/errors.js";

const GiB = 2 ** 30;

const record = (minute: number, extra: Partial<PolicyAuditRecord> = {}): PolicyAuditRecord => ({
  recordedAt: new Date(Date.UTC(2026, 11, 1) + minute * 60_000).toISOString(),
  cluster: "hpc1",
  actor: "slurm-cli-filter",
  user: "alice",
  job: `sbatch job-${minute}.sh`,
  resource: "memory",
  before: 16 * GiB,
  after: 8 * GiB,
  modelVersion: "m-3",
  policy: "default",
  limitedBy: "max_decrease",
  adjustments: [{ rule: "max_decrease", before: 2 * GiB, after: 8 * GiB }],
  mode: "live",
  ...extra,
});

describe("PolicyAuditStore on PostgreSQL", () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let store: PolicyAuditStore;

  beforeAll(async () => {
    db = await createTestDatabase("policy_audit");
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    await migrate(pool, { timescale: "off" });
    store = new PolicyAuditStore(pool);
    await store.record([
      record(0),
      record(10, { user: "bob", submittedBy: "root", predictionId: "p-1" }),
      record(20, {
        cluster: "k8s1",
        actor: "kubernetes-admission",
        job: "Pod ml/train container=main",
        resource: "cores",
        before: null,
        after: 2,
        limitedBy: null,
        adjustments: [],
      }),
      record(30, { mode: "shadow", job: 'O\'Brien "quoted" {braces}, commas' }),
      record(40),
    ]);
  });

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it("returns what was recorded, newest first, with every field intact", async () => {
    const { items, nextCursor } = await store.query();
    expect(nextCursor).toBeNull();
    expect(items.map((r) => r.recordedAt)).toEqual([40, 30, 20, 10, 0].map((m) => record(m).recordedAt));
    const { id, ...bob } = items[3];
    expect(id).toMatch(/^\d+$/);
    expect(bob).toEqual(record(10, { user: "bob", submittedBy: "root", predictionId: "p-1" }));
    expect(items[1].job).toBe('O\'Brien "quoted" {braces}, commas');
    expect(items[2]).toMatchObject({
      before: null,
      after: 2,
      limitedBy: null,
      adjustments: [],
      resource: "cores",
    });
  });

  it("filters by cluster, user and time range", async () => {
    expect((await store.query({ cluster: "k8s1" })).items.map((r) => r.actor)).toEqual([
      "kubernetes-admission",
    ]);
    expect((await store.query({ user: "bob" })).items).toHaveLength(1);
    const window = await store.query({
      cluster: "hpc1",
      from: record(10).recordedAt,
      to: new Date(record(40).recordedAt),
    });
    expect(window.items.map((r) => r.job)).toEqual([
      record(30, { job: 'O\'Brien "quoted" {braces}, commas' }).job,
      "sbatch job-10.sh",
    ]);
  });

  it("pages with a cursor and rejects a cursor it did not issue", async () => {
    const first = await store.query({ cluster: "hpc1", limit: 3 });
    expect(first.items).toHaveLength(3);
    const second = await store.query({ cluster: "hpc1", limit: 3, cursor: first.nextCursor! });
    const all = [...first.items, ...second.items].map((r) => r.job);
    expect(all).toEqual([
      "sbatch job-40.sh",
      record(30, { job: 'O\'Brien "quoted" {braces}, commas' }).job,
      "sbatch job-10.sh",
      "sbatch job-0.sh",
    ]);
    expect(second.nextCursor).toBeNull();
    await expect(store.query({ cursor: "bm90IGEgY3Vyc29y" })).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it("stores nothing for an empty batch", async () => {
    await store.record([]);
    expect((await store.query()).items).toHaveLength(5);
  });
});
