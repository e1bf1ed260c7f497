import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTimescaleTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import { loadMigrations } from "../../../src/data-plane/storage/migration-files.js";
import { openStorage } from "../../../src/data-plane/storage/open-storage.js";
import { jobRecord } from "../storage-fixture.js";
import { dayStart, jobSamples } from "./timescale-fixture.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const DOC = join(ROOT, "docs/timescaledb.md");
const BIN = join(ROOT, "packages/server/bin/jobsight-server.js");
const POSTGRES_BIN = "/usr/lib/postgresql/15/bin";
const MARKER = "<!-- upgrade-procedure:";
const JOBS = ["u-1", "u-2", "u-3"];

/** The shell block right after the marker in docs/timescaledb.md: the procedure users follow. */
async function documentedProcedure(): Promise<string> {
  const text = await readFile(DOC, "utf8");
  const at = text.indexOf(MARKER);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  if (at < 0 || !block) throw new Error(`no shell block after "${MARKER}" in ${DOC}`);
  return block[1];
}

/** Row counts of every table Jobsight owns (partitions counted through their parent). */
async function tableCounts(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
         AND c.relname NOT IN ('jobsight_migrations', 'job_usage_hourly')
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
       ORDER BY 1`,
    );
    const counts: Record<string, number> = {};
    for (const { name } of tables) {
      // Names come from the catalogue and are quoted; no input reaches this statement.
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${client.escapeIdentifier(name)}`,
      );
      counts[name] = rows[0].n;
    }
    return counts;
  } finally {
    await client.end();
  }
}

async function sequences(url: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1",
    );
    return rows;
  } finally {
    await client.end();
  }
}

describe("upgrading a plain PostgreSQL database to TimescaleDB, as docs/timescaledb.md says", () => {
  let oldDb: TestDatabase;
  let newDb: TestDatabase;
  let shims: string;

  beforeAll(async () => {
    oldDb = await createTimescaleTestDatabase("ts_upgrade_old");
    newDb = await createTimescaleTestDatabase("ts_upgrade_new");
    shims = await mkdtemp(join(tmpdir(), "jobsight-upgrade-bin-"));
    // `jobsight-server` as an installed package provides it: the built CLI of this checkout.
    await writeFile(join(shims, "jobsight-server"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    await chmod(join(shims, "jobsight-server"), 0o755);

    // A plain database on the same server (the extension is available, the choice says no), with
    // samples over several days, jobs, events and an artifact with its link (a foreign key).
    const old = await openStorage({ url: oldDb.url, poolSize: 2, timescale: "off" });
    try {
      expect(old.storage.flavour).toBe("plain");
      const s = old.storage;
      await s.clusters.register({ id: "hpc1", name: "HPC1", scheduler: "slurm" });
      await s.jobs.upsert(JOBS.map((id, i) => jobRecord("hpc1", id, "alice", i)));
      await s.samples.insert(jobSamples("hpc1", "u-1", "n1", dayStart(20) + 3_600_000, 2_000));
      await s.samples.insert(jobSamples("hpc1", "u-2", "n2", dayStart(3) - 1_800_000, 1_000, 15));
      await s.samples.insert(jobSamples("hpc1", "u-3", "n1", dayStart(0), 50));
      await s.events.insert([
        {
          cluster: "hpc1",
          node: "n1",
          time: new Date(dayStart(3)).toISOString(),
          kind: "oom_kill",
          jobId: "u-2",
          message: "Memory cgroup out of memory: Killed process 4242 (python)",
        },
      ]);
      await s.artifacts.link({
        sha256: "a".repeat(64),
        sizeBytes: 12,
        contentType: "text/x-shellscript",
        kind: "script",
        cluster: "hpc1",
        jobId: "u-1",
        uploadedBy: "alice",
      });
    } finally {
      await old.close();
    }
  });
  afterAll(async () => {
    await newDb?.drop();
    await oldDb?.drop();
    if (shims) await rm(shims, { recursive: true, force: true });
  });

  it("moves every row into a TimescaleDB database whose reads answer as the plain one did", async () => {
    const read = async (url: string, timescale: "off" | "require") => {
      const opened = await openStorage({ url, poolSize: 2, timescale, migrate: false });
      try {
        const jobs: Record<string, unknown> = {};
        for (const id of JOBS) {
          jobs[id] = {
            series: await opened.storage.samples.series("hpc1", id),
            minute: await opened.storage.samples.series("hpc1", id, { stepSeconds: 60 }),
            summary: await opened.storage.samples.jobSummary("hpc1", id),
            record: await opened.storage.jobs.find(id, { cluster: "hpc1" }),
            events: await opened.storage.events.forJob("hpc1", id),
          };
        }
        return { flavour: opened.storage.flavour, jobs };
      } finally {
        await opened.close();
      }
    };
    const before = await read(oldDb.url, "off");
    const countsBefore = await tableCounts(oldDb.url);
    expect(countsBefore.usage_samples).toBe(3_050);

    await run("bash", ["-euo", "pipefail", "-c", await documentedProcedure()], {
      env: {
        ...process.env,
        OLD_URL: oldDb.url,
        NEW_URL: newDb.url,
        PATH: `${shims}:${POSTGRES_BIN}:${process.env.PATH}`,
      },
      timeout: 120_000,
    });

    expect(await tableCounts(newDb.url)).toEqual(countsBefore);
    const after = await read(newDb.url, "require");
    expect(after).toEqual({ ...before, flavour: "timescale" });

    // The new database is complete: a server starting on it migrates nothing and requires TimescaleDB.
    const versions = (await loadMigrations()).map((m) => m.version);
    const started = await openStorage({ url: newDb.url, poolSize: 2, timescale: "require" });
    try {
      expect(started.migrations).toEqual({ flavour: "timescale", applied: [], skipped: versions });
      // Sequences carry on from where the old database left them.
      expect(await sequences(newDb.url)).toEqual(await sequences(oldDb.url));
    } finally {
      await started.close();
    }
    // The old database is left as it was.
    expect(await tableCounts(oldDb.url)).toEqual(countsBefore);
  });
});
