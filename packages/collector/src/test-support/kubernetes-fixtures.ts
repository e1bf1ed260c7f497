import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { JobRecord, NodeEvent } from "@jobsight/schemas/light";
import type { V1Pod } from "@kubernetes/client-node";
import type { DiskSpool } from "../spool/disk-spool.js";

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
  for (;;) {
    const batch = await spool.peek({ maxRecords: 1000 });
    if (batch.length === 0) return;
    for (const r of batch) {
      if (r.kind === "job") jobs.push(r.value as JobRecord);
      else if (r.kind === "event") events.push(r.value as NodeEvent);
    }
    await spool.ack(batch[batch.length - 1].seq, batch.length);
  }
}
