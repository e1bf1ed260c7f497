import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess, stopProcess } from "./server-process.js";
import { jobRecord } from "./storage-fixture.js";

const TOKEN = "collector-supervised-token-01";
const CLUSTER = "sup";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("embedded PostgreSQL killed with SIGKILL under ingest", () => {
  let root: string;
  let pgDir: string;
  let server: ServerProcess | undefined;
  const postgresLog: string[] = [];

  const postmaster = async () => {
    const lines = (await readFile(join(pgDir, "data", "postmaster.pid"), "utf8")).split("\n");
    return { pid: Number(lines[0]), port: Number(lines[3]) };
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "jobsight-supervised-"));
    // As root, PostgreSQL runs as the postgres user, which must reach the folders below.
    if (process.getuid?.() === 0) await chmod(root, 0o755);
    const dataDir = join(root, "data");
    pgDir = join(dataDir, "postgres");
    const config = join(root, "jobsight.json");
    await writeFile(
      config,
      JSON.stringify({
        dataDir,
        http: { logLevel: "info" },
        rateLimit: { enabled: false },
        auth: { tokens: [{ token: TOKEN, role: "collector", user: "svc", cluster: CLUSTER }] },
      }),
      { mode: 0o600 },
    );
    server = await startServerProcess(["--config", config, "--no-otlp"]);
    // The server's own buffer keeps the last lines only, and request logs would push these out.
    createInterface({ input: server.child.stdout! }).on("line", (line) => {
      if (line.includes("PostgreSQL") && !line.includes('"err"')) postgresLog.push(line);
    });
  });

  afterAll(async () => {
    if (server) await stopProcess(server.child, "SIGTERM");
    const left = await postmaster().catch(() => undefined);
    if (left && isAlive(left.pid)) process.kill(left.pid, "SIGQUIT");
    await rm(root, { recursive: true, force: true });
  });

  it("restarts it on the same port, goes unready then ready, answers 503 meanwhile and loses nothing acknowledged", async () => {
    const url = server!.url;
    const acknowledged: string[] = [];
    const failures: { status: number; code?: string }[] = [];
    let stop = false;
    let n = 0;
    const ingest = async () => {
      while (!stop) {
        const jobId = `j${n++}`;
        const res = await fetch(`${url}/v1/jobs`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ records: [jobRecord(CLUSTER, jobId, "alice", n)] }),
        }).catch(() => undefined);
        if (!res) failures.push({ status: 0 });
        else if (res.ok) {
          await res.arrayBuffer();
          acknowledged.push(jobId);
        } else failures.push({ status: res.status, code: ((await res.json()) as { code?: string }).code });
      }
    };
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const senders = [ingest(), ingest()];

    while (acknowledged.length < 20) await sleep(10);
    const before = await postmaster();
    const ackBeforeKill = acknowledged.length;
    process.kill(before.pid, "SIGKILL");

    // Readiness: 503 while PostgreSQL is down, 200 again within the back-off.
    const readiness: number[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const res = await fetch(`${url}/readyz`);
      const body = (await res.json()) as { checks: Record<string, string> };
      if (readiness.at(-1) !== res.status) readiness.push(res.status);
      if (res.status === 503) expect(body.checks.postgres).toMatch(/^unavailable/);
      if (readiness.includes(503) && res.status === 200) break;
      await sleep(25);
    }
    expect(readiness.slice(-2)).toEqual([503, 200]);

    // The pool recovers without an app restart: ingest succeeds again.
    const ackAtRecovery = acknowledged.length;
    const until = Date.now() + 15_000;
    while (acknowledged.length < ackAtRecovery + 20 && Date.now() < until) await sleep(20);
    stop = true;
    await Promise.all(senders);
    expect(acknowledged.length).toBeGreaterThanOrEqual(ackAtRecovery + 20);
    expect(acknowledged.length).toBeGreaterThan(ackBeforeKill);

    // Requests during the outage were refused as retryable, never as internal errors.
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) expect(failure).toEqual({ status: 503, code: "STORAGE_UNAVAILABLE" });

    // Same data folder and port, a new postmaster; the server process itself never restarted.
    const after = await postmaster();
    expect(after.port).toBe(before.port);
    expect(after.pid).not.toBe(before.pid);
    expect(server!.child.exitCode).toBeNull();
    expect(postgresLog.join("\n")).toMatch(/embedded PostgreSQL \(pid \d+\) exited unexpectedly/);
    // The supervisor logs the restart after its start() returns, which can be after readiness.
    const logDeadline = Date.now() + 10_000;
    while (!postgresLog.some((l) => l.includes("embedded PostgreSQL restarted")) && Date.now() < logDeadline)
      await sleep(50);
    expect(postgresLog.join("\n")).toMatch(/embedded PostgreSQL restarted/);

    // Every acknowledged record is stored exactly once.
    const password = (await readFile(join(pgDir, "password"), "utf8")).trim();
    const client = new pg.Client({
      connectionString: `postgres://jobsight:${encodeURIComponent(password)}@127.0.0.1:${after.port}/jobsight`,
    });
    await client.connect();
    try {
      const { rows } = await client.query<{ job_id: string; n: number }>(
        "SELECT job_id, count(*)::int AS n FROM jobs WHERE cluster = $1 GROUP BY job_id",
        [CLUSTER],
      );
      const stored = new Map(rows.map((r) => [r.job_id, r.n]));
      for (const jobId of acknowledged) expect(stored.get(jobId), jobId).toBe(1);
    } finally {
      await client.end();
    }
  });
});
