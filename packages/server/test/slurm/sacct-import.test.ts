// `jobsight import --format sacct` (the SDK's CLI, which runs the server package's import) on an
// export of the real cluster's accounting database, twice: every job is stored once.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  describeSlurm,
  type ReferenceJobs,
  slurmCluster,
  submitReferenceJobs,
  waitForReferenceJobs,
} from "../../../../test/slurm/index.js";
import { openTestStorage, type StorageFixture } from "../integration/storage-fixture.js";
import { sacctParsableExport } from "./sacct-export.js";

const REPO = new URL("../../../../", import.meta.url).pathname;
const JOBSIGHT_CLI = join(REPO, "packages/sdk/dist/cli/main.js");

type CliRun = { code: number | null; stdout: string; stderr: string };

/** Runs the built `jobsight` CLI from the repository (where it finds the server package). */
function jobsight(args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [JOBSIGHT_CLI, ...args], { cwd: REPO, env: process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describeSlurm("jobsight import --format sacct from the real accounting database", () => {
  let fx: StorageFixture;
  let dir: string;
  let exportFile: string;
  let jobIds: Set<string>;
  let reference: ReferenceJobs;

  beforeAll(async () => {
    reference = await submitReferenceJobs();
    // Every reference job finished: their records no longer change between the two imports.
    await waitForReferenceJobs();
    fx = await openTestStorage("sacct_import");
    dir = await mkdtemp(join(tmpdir(), "jobsight-sacct-import-"));
    exportFile = join(dir, "sacct.txt");
    const text = await sacctParsableExport();
    await writeFile(exportFile, text);
    // The jobs of the export: lines whose JobID names no step (`12.batch`, `12.0`).
    jobIds = new Set(
      text
        .split("\n")
        .slice(1)
        .map((line) => line.split("|")[0])
        .filter((id) => /^\d+$/.test(id)),
    );
  }, 240_000);

  afterAll(async () => {
    await fx?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("stores every job of the export once, however often it is imported", async () => {
    const cluster = slurmCluster().clusterName;
    const args = ["import", exportFile, "--format", "sacct", "--database-url", fx.db.url];
    expect(jobIds.size).toBeGreaterThanOrEqual(Object.keys(reference).length);

    const first = await jobsight(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`imported ${jobIds.size}, duplicates 0, bad lines 0`);
    expect(await fx.storage.jobs.count(cluster)).toBe(jobIds.size);

    // The same command again: the source's checkpoint says every job is committed, so each is
    // skipped (the counts are the source's, earlier runs included).
    const second = await jobsight(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(
      `imported ${jobIds.size}, duplicates 0, bad lines 0 (all runs of this source; this run skipped the ${jobIds.size} lines already committed)`,
    );
    expect(await fx.storage.jobs.count(cluster)).toBe(jobIds.size);

    // Forced to read it all again: every job is a duplicate, none is stored twice.
    const restarted = await jobsight([...args, "--restart"]);
    expect(restarted.code, restarted.stderr).toBe(0);
    expect(restarted.stdout).toContain(`imported 0, duplicates ${jobIds.size}, bad lines 0`);
    expect(await fx.storage.jobs.count(cluster)).toBe(jobIds.size);

    // What was stored is what SLURM accounted, e.g. the job that exited 1.
    const [failed] = await fx.storage.jobs.find(reference.exitsOne.id, { cluster });
    expect(failed).toMatchObject({ source: "sacct-import", outcome: { state: "FAILED", exitCode: 1 } });
  });
});
