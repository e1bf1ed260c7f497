import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL("./debian-servers.sh", import.meta.url));

/** Debian packages of the servers some integration tests run for real. */
export const TEST_DEBIAN_SERVERS = ["prometheus", "prometheus-alertmanager", "prometheus-node-exporter"];

/**
 * Installs `packages` (apt-get, one installer at a time) where missing, before any test runs, so
 * tests running side by side never install at once. Resolves with the reason when it could not:
 * the tests that need a package then try again themselves and fail with that reason.
 *
 * @example
 * const problem = await installDebianServers(TEST_DEBIAN_SERVERS);
 */
export async function installDebianServers(packages: readonly string[]): Promise<string | undefined> {
  if (process.platform !== "linux") return `Debian packages need Linux, this is ${process.platform}`;
  try {
    await run("bash", [SCRIPT, ...packages], { timeout: 900_000 });
    return undefined;
  } catch (error) {
    const e = error as Error & { stderr?: string };
    return `${packages.join(", ")} not installed: ${(e.stderr ?? e.message).trim().split("\n").slice(-3).join(" | ")}`;
  }
}
