import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Result of {@link ensureSlurmPackages}: installed (or already there), or why not. */
export type InstallResult = { ok: true; ms: number } | { ok: false; ms: number; reason: string };

const SCRIPT = fileURLToPath(new URL("./install.sh", import.meta.url));
const REASONS: Record<number, string> = {
  10: "not root, cannot install the SLURM Debian packages",
  11: "no apt-get, cannot install the SLURM Debian packages",
  12: "apt-get could not install the SLURM Debian packages",
};

/**
 * Runs install.sh: a quick check when slurmctld, slurmd, slurm-client, slurmdbd, munge,
 * mariadb-server and lua5.1 are installed, an `apt-get update` + `install` (about a minute) when not.
 *
 * @example
 * const result = await ensureSlurmPackages();
 * if (!result.ok) console.warn(result.reason);
 */
export function ensureSlurmPackages(): Promise<InstallResult> {
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  if (process.platform !== "linux") {
    return Promise.resolve({ ok: false, ms: 0, reason: `needs Linux, this is ${process.platform}` });
  }
  return new Promise((resolve) => {
    const child = spawn("bash", [SCRIPT], { stdio: ["ignore", "ignore", "pipe"] });
    const stderr: string[] = [];
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr.push(chunk);
      if (stderr.length > 400) stderr.shift();
    });
    child.on("error", (error) =>
      resolve({ ok: false, ms: elapsed(), reason: `cannot run install.sh: ${error.message}` }),
    );
    child.on("close", (code) => {
      if (code === 0) return resolve({ ok: true, ms: elapsed() });
      const tail = stderr.join("").trim().split("\n").slice(-5).join(" | ");
      const reason = REASONS[code ?? -1] ?? `install.sh failed with exit code ${code}`;
      resolve({ ok: false, ms: elapsed(), reason: `${reason}: ${tail}` });
    });
  });
}
