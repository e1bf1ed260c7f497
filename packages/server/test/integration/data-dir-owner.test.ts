import { execFileSync, spawn } from "node:child_process";
import { chmod, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ServerProcess, startServerProcess, stopProcess } from "./server-process.js";

// One owner of the data directory (issue #24): a command never starts or stops the embedded
// PostgreSQL of a running server, and as root the embedded PostgreSQL either works or says why not
// before initdb.

const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));
const PLATFORM = "platform-owner-token-000000001";
const asRoot = process.getuid?.() === 0;

type CommandResult = { code: number | null; stdout: string; stderr: string };

/** Runs `jobsight-server <args>` from source and collects its output and exit code. */
function runCommand(args: string[]): Promise<CommandResult> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", ...args], {
    cwd: PACKAGE_DIR,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const readJson = async (path: string) => JSON.parse(await readFile(path, "utf8"));
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
const postmasterPid = async (pgDir: string) =>
  Number((await readFile(join(pgDir, "data", "postmaster.pid"), "utf8")).split("\n")[0]);

/** Pids of the processes (PostgreSQL's) whose working folder is `dir`. */
async function processesIn(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => undefined);
    if (cwd === dir) pids.push(Number(entry));
  }
  return pids;
}

/** A temp folder PostgreSQL's unprivileged user can pass through when the tests run as root. */
async function tempRoot(prefix: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  if (asRoot) await chmod(root, 0o755);
  return root;
}

async function writeConfig(root: string, dataDir: string): Promise<string> {
  const file = join(root, "jobsight.json");
  await writeFile(
    file,
    JSON.stringify({
      dataDir,
      http: { logLevel: "info" },
      rateLimit: { enabled: false },
      intelligence: { enabled: false },
      auth: { tokens: [{ token: PLATFORM, role: "platform", user: "ops" }] },
    }),
    { mode: 0o600 },
  );
  return file;
}

describe("commands beside a serving server on the same data directory", () => {
  let root: string;
  let dataDir: string;
  let pgDir: string;
  let config: string;
  const servers: ServerProcess[] = [];

  const registerCluster = (url: string, id: string) =>
    fetch(`${url}/v1/clusters`, {
      method: "POST",
      headers: { authorization: `Bearer ${PLATFORM}`, "content-type": "application/json" },
      body: JSON.stringify({ id, name: id, scheduler: "slurm" }),
    });

  beforeAll(async () => {
    root = await tempRoot("jobsight-owner-");
    dataDir = join(root, "data");
    pgDir = join(dataDir, "postgres");
    config = await writeConfig(root, dataDir);
    servers.push(await startServerProcess(["--config", config, "--no-otlp"]));
  });

  afterAll(async () => {
    for (const server of servers) await stopProcess(server.child, "SIGTERM");
    const left = await postmasterPid(pgDir).catch(() => undefined);
    if (left && isAlive(left)) process.kill(left, "SIGQUIT");
    await rm(root, { recursive: true, force: true });
  });

  it("refuses token create, import, train and a second serve, naming the server; the server keeps answering", async () => {
    const server = servers[0];
    const pid = server.child.pid!;
    const postmaster = await postmasterPid(pgDir);
    expect(await readJson(join(pgDir, "owner.json"))).toMatchObject({ pid, kind: "server", url: server.url });
    const history = join(root, "history.swf");
    await writeFile(history, "; an SWF log\n1 0 0 60 1 -1 -1 1 120 -1 1 1 1 -1 1 -1 -1 -1\n");

    const refused = await Promise.all([
      runCommand(["token", "create", "--role", "collector", "--cluster", "c1", "--data-dir", dataDir]),
      runCommand(["import", history, "--format", "swf", "--cluster", "c1", "--data-dir", dataDir]),
      runCommand(["train", "--data-dir", dataDir]),
      runCommand(["serve", "--data-dir", dataDir, "--port", "0", "--no-otlp"]),
    ]);
    for (const [i, result] of refused.entries()) {
      expect(result.code, result.stderr).not.toBe(0);
      expect(result.stderr).toContain(`pid ${pid}`);
      expect(result.stderr).toContain(pgDir);
      expect(result.stderr).toContain(`kill -TERM ${pid}`);
      if (i < 3) {
        expect(result.stderr).toContain(`serving ${server.url}`);
        expect(result.stderr).toContain("A command never starts or stops a database a running server owns");
      }
      // A message, not a stack trace.
      expect(result.stderr).not.toMatch(/^\s+at /m);
    }
    expect(refused[0].stderr).toContain(`through its API (${server.url}/v1/tokens`);

    // The server's PostgreSQL is the same one, still running, and the server still answers.
    expect(await postmasterPid(pgDir)).toBe(postmaster);
    expect(isAlive(postmaster)).toBe(true);
    expect((await registerCluster(server.url, "c1")).status).toBeLessThan(300);
    const clusters = await fetch(`${server.url}/v1/clusters`, {
      headers: { authorization: `Bearer ${PLATFORM}` },
    });
    expect(clusters.status).toBe(200);
    expect(await readJson(join(pgDir, "owner.json"))).toMatchObject({ pid });
  });

  it("after kill -9 of the server its PostgreSQL is gone within seconds; a command, then the next server, start their own and find every acknowledged record; a clean stop removes the record", async () => {
    const killed = servers.shift()!;
    const postmaster = await postmasterPid(pgDir);
    expect((await registerCluster(killed.url, "c0")).status).toBeLessThan(300);
    await stopProcess(killed.child, "SIGKILL");
    // The killed server's record stays behind, stale; its PostgreSQL follows it (fast shutdown).
    expect((await readJson(join(pgDir, "owner.json"))).pid).toBe(killed.child.pid);
    await vi.waitFor(() => expect(isAlive(postmaster)).toBe(false), { timeout: 10_000, interval: 100 });
    expect(await readFile(join(pgDir, "postgres.log"), "utf8")).toContain("received fast shutdown request");
    expect(await processesIn(join(pgDir, "data"))).toEqual([]);

    const created = await runCommand([
      "token",
      "create",
      "--role",
      "collector",
      "--cluster",
      "c1",
      "--config",
      config,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim();
    expect(token).not.toBe("");
    expect(await exists(join(pgDir, "owner.json"))).toBe(false);
    // The command started a PostgreSQL of its own and stopped it.
    expect(await exists(join(pgDir, "data", "postmaster.pid"))).toBe(false);
    expect(await processesIn(join(pgDir, "data"))).toEqual([]);

    const next = await startServerProcess(["--config", config, "--no-otlp"]);
    servers.push(next);
    expect(next.output.some((line) => line.includes("started PostgreSQL on"))).toBe(true);
    expect(await readJson(join(pgDir, "owner.json"))).toMatchObject({ pid: next.child.pid, url: next.url });
    const clusters = await fetch(`${next.url}/v1/clusters`, {
      headers: { authorization: `Bearer ${PLATFORM}` },
    });
    expect(clusters.status).toBe(200);
    const listed = JSON.stringify(await clusters.json());
    expect(listed).toContain('"c0"');
    expect(listed).toContain('"c1"');
    // The token the command stored while no server ran is known to the next server.
    const asCollector = await fetch(`${next.url}/v1/usage`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ idempotencyKey: "after-kill", samples: [] }),
    });
    expect(asCollector.status).not.toBe(401);
    expect((await registerCluster(next.url, "c2")).status).toBeLessThan(300);
    const started = await postmasterPid(pgDir);

    await stopProcess(next.child, "SIGTERM");
    servers.pop();
    expect(next.child.exitCode).toBe(0);
    expect(await exists(join(pgDir, "owner.json"))).toBe(false);
    expect(isAlive(started)).toBe(false);
  });
});

describe("commands with no server running", () => {
  let root: string;
  let dataDir: string;
  let pgDir: string;

  beforeAll(async () => {
    root = await tempRoot("jobsight-owner-alone-");
    dataDir = join(root, "data");
    pgDir = join(dataDir, "postgres");
    await writeFile(
      join(root, "jobsight.json"),
      JSON.stringify({ dataDir, ingest: { requireRegisteredCluster: false } }),
      { mode: 0o600 },
    );
  });

  afterAll(async () => {
    for (const pid of await processesIn(join(pgDir, "data"))) process.kill(pid, "SIGKILL");
    await rm(root, { recursive: true, force: true });
  });

  it("token create initialises and starts the embedded PostgreSQL, and leaves no PostgreSQL and no record behind", async () => {
    const created = await runCommand([
      "token",
      "create",
      "--role",
      "collector",
      "--cluster",
      "c1",
      "--config",
      join(root, "jobsight.json"),
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).not.toBe("");
    expect(await exists(join(pgDir, "data", "PG_VERSION"))).toBe(true);
    expect(await exists(join(pgDir, "data", "postmaster.pid"))).toBe(false);
    expect(await processesIn(join(pgDir, "data"))).toEqual([]);
    expect(await exists(join(pgDir, "owner.json"))).toBe(false);
    if (asRoot) {
      // PostgreSQL ran as the unprivileged postgres user, which owns the cluster.
      const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
      expect((await stat(join(pgDir, "data"))).uid).toBe(uid);
    }
  });

  it("ignores a stale owner record (its pid is dead)", async () => {
    const gone = spawn("true", { stdio: "ignore" });
    await new Promise((resolve) => gone.once("exit", resolve));
    await writeFile(
      join(pgDir, "owner.json"),
      JSON.stringify({
        pid: gone.pid,
        kind: "server",
        name: "jobsight-server",
        startedAt: new Date().toISOString(),
        nonce: "x",
        url: "http://127.0.0.1:1",
      }),
      { mode: 0o600 },
    );
    const listed = await runCommand(["token", "list", "--config", join(root, "jobsight.json")]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("collector");
    expect(await exists(join(pgDir, "owner.json"))).toBe(false);
    expect(await processesIn(join(pgDir, "data"))).toEqual([]);
  });
});

describe.skipIf(!asRoot)("as root, a data directory PostgreSQL's user cannot reach", () => {
  let root: string;

  beforeAll(async () => {
    // mkdtemp makes it 0700: the unprivileged user PostgreSQL runs as cannot pass through it.
    root = await mkdtemp(join(tmpdir(), "jobsight-owner-root-"));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("is refused before initdb with a message naming the folder and the fixes", async () => {
    const dataDir = join(root, "data");
    const result = await runCommand(["token", "list", "--data-dir", dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot enter ${root} (mode 0700, owner uid 0)`);
    expect(result.stderr).toContain(`chmod o+x ${root}`);
    expect(result.stderr).toContain("--data-dir");
    expect(result.stderr).toContain("postgres.url");
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(await exists(join(dataDir, "postgres", "data", "PG_VERSION"))).toBe(false);
    expect(await exists(join(dataDir, "postgres", "owner.json"))).toBe(false);
  });
});
