import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DEMO_JOBS, type DemoNode } from "./demo-node.js";

// The parts of `@jobsight/collector` the demo drives, loaded from its build at run time: the
// server may not depend on the collector package.
type Ctor<O, T> = new (options: O) => T;
type CollectorModule = {
  createLogger(options: { level: string }): unknown;
  DiskSpool: {
    open(o: { dir: string; maxBytes: number; logger: unknown }): Promise<{ close(): Promise<void> }>;
  };
  Shipper: Ctor<
    Record<string, unknown>,
    {
      start(): void;
      tick(): Promise<void>;
      stop(graceMs?: number): Promise<void>;
      stats(): { sentBatches: number; sentRecords: number; failures: number; lastError: string | null };
    }
  >;
  ProcReader: Ctor<{ root: string }, unknown>;
  NvidiaSmi: Ctor<Record<string, unknown>, { start(): void; stop(): Promise<void> }>;
  KernelLog: Ctor<Record<string, unknown>, { close(): void }>;
  NodeMode: Ctor<
    Record<string, unknown>,
    {
      collect(): Promise<void>;
      finalReading(jobId: string): Promise<boolean>;
      stop(): Promise<void>;
      stats(): { rounds: number; jobs: number };
    }
  >;
  HttpJsonSink: Ctor<{ url: string; token?: string }, unknown>;
  OtlpSink?: Ctor<{ otlpUrl: string; restUrl: string; token?: string }, unknown>;
};

/** Options of {@link runDemoCollector}. */
export type DemoCollectorOptions = {
  repoRoot: string;
  node: DemoNode;
  cluster: string;
  nodeName: string;
  restUrl: string;
  otlpGrpcUrl: string;
  token: string;
  /** Time of the first round (ms); rounds are `stepSeconds` apart on the node's clock. */
  firstRoundAt: number;
  /** Collection rounds. */
  rounds: number;
  /** Seconds between rounds on the node's clock. */
  stepSeconds: number;
  /** Ends the run early (Ctrl-C): the collector stops and closes what it opened. */
  signal?: AbortSignal;
};

/** What the collector did. */
export type DemoCollectorReport = {
  rounds: number;
  jobs: number;
  batches: number;
  records: number;
  transport: string;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs the collector's own node mode (cgroup v2 discovery, /proc, nvidia-smi, kernel log, disk
 * spool, shipper) against the generated node. Its clock is moved on by `stepSeconds` per round so
 * twenty minutes of a job's life pass in seconds; the recorded nvidia-smi keeps printing in real
 * time, so each round waits for its next reading. Usage goes through the OTLP sink (OTLP/gRPC),
 * events and job records over REST.
 */
export async function runDemoCollector(o: DemoCollectorOptions): Promise<DemoCollectorReport> {
  const c = (await import(
    pathToFileURL(join(o.repoRoot, "packages", "collector", "dist", "index.js")).href
  )) as CollectorModule;
  const log = c.createLogger({ level: "error" });
  const sink = c.OtlpSink
    ? new c.OtlpSink({ otlpUrl: o.otlpGrpcUrl, restUrl: o.restUrl, token: o.token })
    : new c.HttpJsonSink({ url: o.restUrl, token: o.token });
  const spool = await c.DiskSpool.open({ dir: o.node.spoolDir, maxBytes: 64 * 1024 * 1024, logger: log });
  const shipper = new c.Shipper({ spool, sink, logger: log });
  const gpus = new c.NvidiaSmi({ command: o.node.nvidiaSmi, intervalMs: 500, logger: log });
  const bootId = readFileSync(join(o.node.procRoot, "sys", "kernel", "random", "boot_id"), "utf8").trim();
  const kernelLog = new c.KernelLog({
    cluster: o.cluster,
    node: o.nodeName,
    path: o.node.kmsgPath,
    bootId,
    statePath: join(o.node.spoolDir, "kmsg-position.json"),
    logger: log,
  });
  let clock = o.firstRoundAt;
  const node = new c.NodeMode({
    cluster: o.cluster,
    node: o.nodeName,
    spool,
    proc: new c.ProcReader({ root: o.node.procRoot }),
    cgroupVersion: "v2",
    cgroupRoot: o.node.cgroupRoot,
    intervalMs: o.stepSeconds * 1000,
    topProcesses: 5,
    gpus,
    kernelLog,
    now: () => clock,
    logger: log,
  });
  gpus.start();
  shipper.start();
  try {
    await sleep(1_200);
    for (let r = 0; r < o.rounds; r++) {
      o.signal?.throwIfAborted();
      o.node.round(r, o.stepSeconds);
      await sleep(600);
      await node.collect();
      clock += o.stepSeconds * 1000;
    }
    // The jobs end now: each one's epilog asks for its final reading, as on a real node.
    o.signal?.throwIfAborted();
    for (const job of DEMO_JOBS) await node.finalReading(job.jobId);
    await node.stop();
    await shipper.tick();
    await shipper.tick();
  } finally {
    await gpus.stop();
    kernelLog.close();
    // Stopped early, nothing is left to wait for: the spool keeps what was not sent.
    await shipper.stop(o.signal?.aborted ? 0 : 10_000);
    await spool.close();
  }
  const shipped = shipper.stats();
  if (shipped.failures > 0 && shipped.sentBatches === 0)
    throw new Error(`the collector could not ship: ${shipped.lastError}`);
  return {
    rounds: node.stats().rounds,
    jobs: node.stats().jobs,
    batches: shipped.sentBatches,
    records: shipped.sentRecords,
    transport: c.OtlpSink
      ? "OTLP/gRPC (usage) + REST (events, jobs)"
      : "REST JSON (this collector build does not export OtlpSink yet)",
  };
}
