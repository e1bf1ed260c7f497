import { readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { isAlive, markedProcesses, readPidFile } from "./daemons.js";
import { CLUSTER_DIR_PREFIX } from "./slurm-config.js";
import { stopClusterNow } from "./stop-cluster.js";

// A folder without an owner file is either being created by a concurrent run or long abandoned.
const UNOWNED_GRACE_MS = 10 * 60_000;

/**
 * Ends clusters left behind by runs that were killed before their teardown (SIGKILL, a crashed
 * vitest): any `jobsight-slurm-*` folder or marked process whose owning run is gone. Clusters of
 * runs still alive (another developer's concurrent run) are left alone. Returns the roots swept.
 *
 * @example
 * const swept = sweepStaleClusters();
 */
export function sweepStaleClusters(tmpDir: string = tmpdir()): string[] {
  const roots = new Set<string>(markedProcesses().keys());
  try {
    for (const entry of readdirSync(tmpDir))
      if (entry.startsWith(CLUSTER_DIR_PREFIX)) roots.add(join(tmpDir, entry));
  } catch {
    // No readable temp folder: only marked processes can be swept.
  }
  const swept: string[] = [];
  for (const root of roots) {
    if (!basename(root).startsWith(CLUSTER_DIR_PREFIX) || !abandoned(root)) continue;
    stopClusterNow(root);
    swept.push(root);
  }
  return swept;
}

function abandoned(root: string): boolean {
  const owner = readPidFile(join(root, "owner.pid"));
  if (owner !== undefined) return owner !== process.pid && !isAlive(owner);
  try {
    return Date.now() - statSync(root).mtimeMs > UNOWNED_GRACE_MS;
  } catch {
    // The folder is gone but processes still carry its marker: nothing owns them any more.
    return true;
  }
}
