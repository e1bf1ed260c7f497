import { type ChildProcess, execFile, spawn } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { findFreePort } from "../../../../../test/services/free-port.js";

const run = promisify(execFile);
const DEBIAN_SERVERS = fileURLToPath(
  new URL("../../../../../test/services/debian-servers.sh", import.meta.url),
);

/** Where Debian's `prometheus-node-exporter` package puts the exporter. */
export const DEBIAN_NODE_EXPORTER = "/usr/bin/prometheus-node-exporter";

/** A node_exporter of a test's own on 127.0.0.1. */
export type NodeExporterServer = { url: string; stop(): Promise<void> };

const executable = (path: string) =>
  access(path, constants.X_OK).then(
    () => true,
    () => false,
  );

/** Installs Debian's node_exporter when missing (test/services/debian-servers.sh), or throws saying why not. */
export async function ensureNodeExporter(): Promise<string> {
  if (await executable(DEBIAN_NODE_EXPORTER)) return DEBIAN_NODE_EXPORTER;
  try {
    // The tests' one Debian installer: one apt-get at a time, the package's service kept stopped.
    await run("bash", [DEBIAN_SERVERS, "prometheus-node-exporter"], { timeout: 900_000 });
  } catch (error) {
    const e = error as Error & { stderr?: string };
    throw new Error(
      `prometheus-node-exporter is missing and apt-get install failed (needs root and a Debian mirror): ${e.stderr?.slice(-500) ?? e.message}`,
    );
  }
  if (!(await executable(DEBIAN_NODE_EXPORTER)))
    throw new Error(`installed prometheus-node-exporter, yet ${DEBIAN_NODE_EXPORTER} is missing`);
  return DEBIAN_NODE_EXPORTER;
}

/**
 * Starts Debian's node_exporter on 127.0.0.1 (a port picked here) with only `collectors` on,
 * and waits until it answers on /metrics.
 *
 * @example
 * ```ts
 * const exporter = await startNodeExporter(["cpu", "meminfo", "loadavg", "pressure"]);
 * await exporter.stop();
 * ```
 */
export async function startNodeExporter(collectors: readonly string[]): Promise<NodeExporterServer> {
  const binary = await ensureNodeExporter();
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}/metrics`;
  let log = "";
  const child: ChildProcess = spawn(
    binary,
    [
      `--web.listen-address=127.0.0.1:${port}`,
      "--collector.disable-defaults",
      ...collectors.map((c) => `--collector.${c}`),
      "--log.level=warn",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`node_exporter exited with ${child.exitCode}: ${log}`);
    const ready = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { url, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`node_exporter did not answer on ${url} within 30 s: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
