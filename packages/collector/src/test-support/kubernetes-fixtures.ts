import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { V1Pod } from "@kubernetes/client-node";

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
