import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TestServicesError } from "./test-services-error.js";

const SCRIPT = fileURLToPath(new URL("./timescale-install.sh", import.meta.url));

/** Debian's PostgreSQL 15 programs, which the TimescaleDB tarball is built for. */
export const POSTGRES_15_BIN = "/usr/lib/postgresql/15/bin";

/** The TimescaleDB release in the shared folder (the last one supporting PostgreSQL 15). */
export const TIMESCALEDB_VERSION = "2.28.3";

const REASONS: Record<number, string> = {
  10: "not root, cannot install postgresql-15 and TimescaleDB",
  11: "no apt-get, cannot install postgresql-15",
  12: "apt-get could not install postgresql-15",
  13: "the TimescaleDB tarball is missing or damaged",
  14: "the TimescaleDB files could not be installed",
};

/**
 * The folder holding TimescaleDB's tarball: `JOBSIGHT_TIMESCALEDB_DIR`, else `../shared/timescaledb`
 * beside the repository (where CI and the development machines keep it).
 *
 * @example
 * const folder = timescaledbFolder(); // "/work/shared/timescaledb"
 */
export function timescaledbFolder(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env.JOBSIGHT_TIMESCALEDB_DIR || fileURLToPath(new URL("../../../shared/timescaledb", import.meta.url))
  );
}

/**
 * Installs Debian's `postgresql-15` (apt-get) and TimescaleDB from `folder` when missing, through
 * `timescale-install.sh`; a few file checks when both are there, about a minute when not.
 *
 * @throws {TestServicesError} `TIMESCALE_INSTALL_FAILED`, naming why and the script's last words.
 * @example
 * await ensureTimescaleInstalled(timescaledbFolder());
 */
export function ensureTimescaleInstalled(folder: string): Promise<void> {
  if (process.platform !== "linux") {
    return Promise.reject(
      new TestServicesError(
        "TIMESCALE_INSTALL_FAILED",
        `TimescaleDB tests need Linux, this is ${process.platform}`,
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [SCRIPT, folder], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4_000);
    });
    const fail = (reason: string, cause?: unknown) =>
      reject(new TestServicesError("TIMESCALE_INSTALL_FAILED", reason, { cause }));
    child.on("error", (error) => fail(`cannot run timescale-install.sh: ${error.message}`, error));
    child.on("close", (code) => {
      if (code === 0) return resolve();
      const tail = stderr.trim().split("\n").slice(-5).join(" | ");
      fail(`${REASONS[code ?? -1] ?? `timescale-install.sh failed with exit code ${code}`}: ${tail}`);
    });
  });
}
