import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CgroupTree } from "../../src/test-support/cgroup-tree.js";
import { ProcTree } from "../../src/test-support/proc-tree.js";

// The collector and a durable, deduplicating ingest endpoint run as real child processes. The
// backend is stopped for a while, the collector is SIGKILLed while it keeps collecting, both are
// restarted: every sample the collector spooled is stored exactly once, and nothing of the outage
// is lost. (The ingest endpoint is a stand-in until the server's ingest routes land.)

const cli = join(import.meta.dirname, "..", "..", "dist", "cli.js");
const standIn = join(import.meta.dirname, "support", "ingest-stand-in.mjs");
const JOBS = 5;

type Stored = { key: string; path: string; items: { jobId: string; time: string; node: string }[] };

function startStandIn(port: number, store: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [standIn, String(port), store], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (d: string) => {
      const m = /listening (\d+)/.exec(d);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once("exit", (code) => reject(new Error(`stand-in exited ${code}`)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const exited = (child: ChildProcess) =>
  new Promise<void>((r) =>
    child.exitCode !== null || child.signalCode !== null ? r() : child.once("exit", () => r()),
  );

describe("collector delivery across backend outage and SIGKILL", () => {
  let work: string;
  let tree: CgroupTree;
  let proc: ProcTree;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    if (!existsSync(cli))
      throw new Error("build the collector first: pnpm --filter @jobsight/collector build");
    work = mkdtempSync(join(tmpdir(), "jobsight-it-"));
    tree = new CgroupTree();
    proc = new ProcTree();
    for (let j = 0; j < JOBS; j++) tree.slurmJob(String(500 + j), { memoryPeak: 1000 + j });
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await Promise.all(children.map(exited));
    tree.cleanup();
    proc.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  function startCollector(port: number): ChildProcess {
    const args = [
      cli,
      "run",
      "--cluster",
      "it",
      "--node",
      "n1",
      "--interval",
      "1",
      "--cgroup-root",
      tree.root,
      "--cgroup-version",
      "v2",
      "--proc-root",
      proc.root,
      "--gpu",
      "off",
      "--kmsg",
      "false",
      "--spool-dir",
      join(work, "spool"),
      "--url",
      `http://127.0.0.1:${port}`,
      "--health-port",
      "0",
      "--log-level",
      "error",
      "--batch-records",
      "7",
    ];
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, JOBSIGHT_TOKEN: "it-token" },
    });
    children.push(child);
    return child;
  }

  // Usage batches only: the node also sends events (e.g. that it does not read the kernel log).
  const stored = (store: string): Stored[] =>
    existsSync(store)
      ? readFileSync(store, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Stored)
          .filter((b) => b.path === "/v1/usage")
      : [];
  const roundTimes = (store: string) => new Set(stored(store).flatMap((b) => b.items.map((s) => s.time)));

  it("stores every spooled sample exactly once", async () => {
    const store = join(work, "store.jsonl");
    let backend = await startStandIn(0, store);
    children.push(backend.child);
    const port = backend.port;
    const first = startCollector(port);
    const deadline = Date.now() + 30_000;
    while (roundTimes(store).size < 2 && Date.now() < deadline) await sleep(200);
    expect(roundTimes(store).size).toBeGreaterThanOrEqual(2);

    // The data plane goes away; the collector keeps collecting into its spool.
    backend.child.kill("SIGKILL");
    await exited(backend.child);
    const outageStart = Date.now();
    await sleep(3500);
    // The collector dies mid-flight (no clean shutdown, possibly mid-append).
    first.kill("SIGKILL");
    await exited(first);
    const outageEnd = Date.now();

    backend = await startStandIn(port, store);
    children.push(backend.child);
    const second = startCollector(port);
    const restartedAt = Date.now();
    while (Date.now() < restartedAt + 30_000) {
      const latest = Math.max(...[...roundTimes(store)].map((t) => Date.parse(t)));
      if (latest > restartedAt + 2000) break;
      await sleep(200);
    }
    second.kill("SIGTERM");
    await exited(second);
    expect(second.exitCode).toBe(0);

    const samples = stored(store).flatMap((b) => b.items);
    const seen = new Map<string, number>();
    for (const s of samples) seen.set(`${s.jobId}@${s.time}`, (seen.get(`${s.jobId}@${s.time}`) ?? 0) + 1);
    const duplicates = [...seen].filter(([, n]) => n > 1);
    expect(duplicates).toEqual([]);
    // Every round that was spooled is complete: all jobs, none lost in a batch split.
    const perRound = new Map<string, number>();
    for (const s of samples) perRound.set(s.time, (perRound.get(s.time) ?? 0) + 1);
    expect([...perRound.values()].every((n) => n === JOBS)).toBe(true);
    // Rounds collected while the backend was down were delivered after it came back.
    const duringOutage = [...perRound.keys()].filter(
      (t) => Date.parse(t) > outageStart + 500 && Date.parse(t) < outageEnd - 500,
    );
    expect(duringOutage.length).toBeGreaterThanOrEqual(2);
    expect([...perRound.keys()].some((t) => Date.parse(t) > restartedAt)).toBe(true);
  });
});
