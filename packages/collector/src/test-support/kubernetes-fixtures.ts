import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { JobRecord, NodeEvent } from "@jobsight/schemas/light";
import type { V1Pod } from "@kubernetes/client-node";
import type { DiskSpool } from "../spool/disk-spool.js";
import { takeSpooled } from "./spool-contents.js";

const dir = join(import.meta.dirname, "..", "modes", "fixtures", "kubernetes");

/** The objects of a Kubernetes fixture file (`modes/fixtures/kubernetes/<name>.json`). */
export function kubernetesFixture<T = V1Pod>(name: string): T[] {
  return JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8"));
}

/** Waits until `check` holds, polling; fails naming `what` after `timeoutMs`. */
export async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 8000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Moves everything `spool` holds into `jobs` and `events`, acknowledging it. */
export async function drainSpool(spool: DiskSpool, jobs: JobRecord[], events: NodeEvent[]): Promise<void> {
  const taken = await takeSpooled(spool);
  jobs.push(...taken.jobs);
  events.push(...taken.events);
}
