import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Flags for Debian's Chromium in tests: headless, no sandbox (root), no GPU, and nothing that
 * reaches the network on its own (QUIC, component updates, sync, background fetches).
 */
export const CHROMIUM_TEST_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A fresh, empty Chromium profile folder, and how to remove it. */
export type UserDataDir = { path: string; remove(): Promise<void> };

/**
 * Makes a fresh profile folder so that no two runs share cookies, storage or caches.
 *
 * @example
 * ```ts
 * const profile = await freshUserDataDir();
 * const context = await chromium.launchPersistentContext(profile.path, { executablePath, args: [...CHROMIUM_TEST_ARGS] });
 * ```
 */
export async function freshUserDataDir(prefix = "jobsight-chromium-"): Promise<UserDataDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
