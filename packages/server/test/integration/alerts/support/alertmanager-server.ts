import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const BINARY = "/usr/bin/prometheus-alertmanager";
const INSTALL = fileURLToPath(new URL("./install-alertmanager.sh", import.meta.url));
const REASONS: Record<number, string> = {
  10: "not root, cannot install Debian's prometheus-alertmanager",
  11: "no apt-get, cannot install Debian's prometheus-alertmanager",
  12: "apt-get could not install Debian's prometheus-alertmanager",
};

// One receiver that notifies nobody: the tests read alerts back through the API.
const CONFIG = `route:
  receiver: nobody
  group_wait: 1s
receivers:
  - name: nobody
`;

/** A private Alertmanager on 127.0.0.1. */
export type AlertmanagerServer = { url: string; stop(): Promise<void> };

/** Runs install-alertmanager.sh (a no-op when installed); throws with the reason when it fails. */
export async function ensureAlertmanager(): Promise<void> {
  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn("bash", [INSTALL], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      err = (err + c).slice(-4000);
    });
    child.on("error", reject);
    child.on("close", (c) => resolve({ code: c, stderr: err }));
  });
  if (code === 0) return;
  const tail = stderr.trim().split("\n").slice(-5).join(" | ");
  throw new Error(`${REASONS[code ?? -1] ?? `install-alertmanager.sh exited with ${code}`}: ${tail}`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Installs (when missing) and starts Debian's Alertmanager on a temporary directory and a port of
 * the system's choosing, clustering off, and waits until `/-/ready` answers.
 */
export async function startAlertmanager(): Promise<AlertmanagerServer> {
  await ensureAlertmanager();
  const dir = await mkdtemp(join(tmpdir(), "jobsight-alertmanager-"));
  await writeFile(join(dir, "alertmanager.yml"), CONFIG);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    BINARY,
    [
      `--config.file=${join(dir, "alertmanager.yml")}`,
      `--storage.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--cluster.listen-address=",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    log = (log + c).slice(-4000);
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { url, stop };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(
    `Alertmanager did not become ready on ${url}: ${log.trim().split("\n").slice(-5).join(" | ")}`,
  );
}
