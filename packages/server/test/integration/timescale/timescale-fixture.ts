import type { UsageSample } from "@jobsight/schemas";
import type pg from "pg";
import { createTimescaleTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import type { SamplePolicyOptions } from "../../../src/data-plane/queries/sample-policies.js";
import { type OpenedStorage, openStorage } from "../../../src/data-plane/storage/open-storage.js";

/** A fresh database on the run's TimescaleDB server with the data plane migrated on it. */
export type TimescaleFixture = OpenedStorage & { db: TestDatabase; dispose(): Promise<void> };

/** The policy jobs Jobsight installs on TimescaleDB, by their procedure. */
export type PolicyProc = "policy_compression" | "policy_retention" | "policy_refresh_continuous_aggregate";

export const DAY_MS = 86_400_000;

/**
 * Opens the data plane on a new database of the TimescaleDB server (`timescale: "require"`), with
 * its policy jobs paused so each test decides when they run (`CALL run_job`).
 */
export async function openTimescaleStorage(
  prefix: string,
  policies: SamplePolicyOptions = { retentionDays: 90, compressAfterDays: 7 },
): Promise<TimescaleFixture> {
  const db = await createTimescaleTestDatabase(prefix);
  try {
    const opened = await openStorage({ url: db.url, poolSize: 4, timescale: "require", policies });
    await pausePolicies(opened.storage.pool);
    return {
      ...opened,
      db,
      dispose: async () => {
        await opened.close();
        await db.drop();
      },
    };
  } catch (error) {
    await db.drop();
    throw error;
  }
}

/** Stops TimescaleDB's scheduler from running Jobsight's policies by itself; `run_job` still runs them. */
export async function pausePolicies(pool: pg.Pool): Promise<void> {
  await pool.query(
    `SELECT alter_job(job_id, scheduled => false) FROM timescaledb_information.jobs
     WHERE proc_name IN ('policy_compression', 'policy_retention', 'policy_refresh_continuous_aggregate')`,
  );
}

/** The id of the one policy job of `proc`. */
export async function policyJob(pool: pg.Pool, proc: PolicyProc): Promise<number> {
  const { rows } = await pool.query<{ job_id: number }>(
    "SELECT job_id FROM timescaledb_information.jobs WHERE proc_name = $1",
    [proc],
  );
  if (rows.length !== 1) throw new Error(`expected one ${proc} job, found ${rows.length}`);
  return rows[0].job_id;
}

/** Runs a policy job now, in this session, as the scheduler would. */
export async function runPolicy(pool: pg.Pool, proc: PolicyProc): Promise<void> {
  await pool.query("CALL run_job($1::int)", [await policyJob(pool, proc)]);
}

/** The chunks of `usage_samples`, oldest first. */
export async function sampleChunks(
  pool: pg.Pool,
): Promise<{ name: string; start: string; compressed: boolean }[]> {
  const { rows } = await pool.query<{ name: string; start: Date; compressed: boolean }>(
    `SELECT chunk_name AS name, range_start AS start, is_compressed AS compressed
     FROM timescaledb_information.chunks WHERE hypertable_name = 'usage_samples' ORDER BY range_start`,
  );
  return rows.map((r) => ({ ...r, start: r.start.toISOString() }));
}

/** UTC midnight `daysAgo` days before today. */
export function dayStart(daysAgo: number, now = Date.now()): number {
  return Math.floor(now / DAY_MS) * DAY_MS - daysAgo * DAY_MS;
}

/**
 * `count` samples of one job on one node, every `intervalSeconds` from `startMs`, shaped like the
 * collector's cgroup v2 readings (memory wandering with a spike, counters that only grow).
 */
export function jobSamples(
  cluster: string,
  jobId: string,
  node: string,
  startMs: number,
  count: number,
  intervalSeconds = 10,
): UsageSample[] {
  const out: UsageSample[] = [];
  const seed = Number.parseInt(jobId.replace(/\D/g, "") || "7", 10);
  for (let i = 0; i < count; i++) {
    const memory =
      2 ** 30 + ((i * 7919 + seed * 104_729) % 2 ** 26) + (i === Math.floor(count / 2) ? 2 ** 31 : 0);
    out.push({
      cluster,
      jobId,
      node,
      time: new Date(startMs + i * intervalSeconds * 1000).toISOString(),
      user: "alice",
      memory: {
        currentBytes: memory,
        peakBytes: memory + 4096,
        limitBytes: 2 ** 34,
        anonBytes: memory - 8192,
      },
      cpu: { usageSeconds: i * 3.5, userSeconds: i * 3, systemSeconds: i * 0.5, limitCores: 4 },
      io: { readBytes: i * 4096, writeBytes: i * 1024, readOps: i, writeOps: i },
      pids: 5 + ((i + seed) % 7),
    });
  }
  return out;
}
