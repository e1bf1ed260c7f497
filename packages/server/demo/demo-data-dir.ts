import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { findRunningPostmaster, isAlive } from "../src/data-plane/storage/postmaster-lock.js";

// Written into every folder the demo fills: only such a folder (or an empty one) is ever emptied.
const MARKER = ".jobsight-demo";

/** Options of {@link prepareDemoDataDir}. */
export type DemoDataDirOptions = {
  /** The repository's own `.jobsight/demo`: emptied even without the marker (older demos wrote none). */
  isDefault: boolean;
};

/** The embedded PostgreSQL's cluster folder under a demo data folder (as the server lays it out). */
export const demoPostgresData = (dataDir: string) => join(dataDir, "postgres", "data");

/**
 * Gives the demo an empty data folder, so that every run shows the same report from its own data:
 * a PostgreSQL a killed run left on it is stopped and whatever the previous run stored is removed.
 * A folder that holds files the demo did not put there is refused, never emptied.
 *
 * @example
 * ```ts
 * const removed = await prepareDemoDataDir(".jobsight/demo", { isDefault: true });
 * ```
 * @returns whether a previous run's data was removed
 */
export async function prepareDemoDataDir(dataDir: string, options: DemoDataDirOptions): Promise<boolean> {
  await mkdir(dataDir, { recursive: true });
  const entries = await readdir(dataDir);
  const previous = entries.length > 0;
  if (previous) {
    if (!options.isDefault && !entries.includes(MARKER))
      throw new Error(
        `${dataDir} holds files the demo did not make; the demo empties its data folder at each run, so give it a new or empty one (--data-dir)`,
      );
    await stopDemoPostgres(dataDir);
    // The folder itself stays: its owner and mode may have been set for the embedded PostgreSQL.
    await Promise.all(entries.map((name) => rm(join(dataDir, name), { recursive: true, force: true })));
  }
  await writeFile(
    join(dataDir, MARKER),
    "Data of the Jobsight demo (pnpm demo); every run empties this folder and starts again.\n",
  );
  return previous;
}

/**
 * Stops the PostgreSQL running on the demo's data folder, if any (a fast shutdown, then an
 * immediate one, then SIGKILL), and waits until it is gone.
 */
export async function stopDemoPostgres(dataDir: string): Promise<void> {
  const pgData = demoPostgresData(dataDir);
  if (!existsSync(pgData)) return;
  const running = await findRunningPostmaster(pgData, () => {});
  if (!running) return;
  for (const [signal, waitMs] of [
    ["SIGINT", 15_000],
    ["SIGQUIT", 5_000],
    ["SIGKILL", 5_000],
  ] as const) {
    try {
      process.kill(running.pid, signal);
    } catch {
      return;
    }
    const deadline = Date.now() + waitMs;
    while (stillRuns(running.pid) && Date.now() < deadline) await sleep(50);
    if (!stillRuns(running.pid)) return;
  }
}

/** Alive and not a zombie (in a container, nobody may reap a killed run's orphans). */
function stillRuns(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
