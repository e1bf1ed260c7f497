import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { DemoNode } from "./demo-node.js";

/** The parts of `@jobsight/collector` the demo drives (loaded from its build at run time). */
type CollectorModule = {
  loadConfig(sources: { argv: string[]; env: Record<string, string> }): unknown;
  createLogger(options: { level: string }): unknown;
  startCollector(options: { config: unknown; logger: unknown; sink?: unknown; version?: string }): Promise<{
    report(): Record<string, unknown>;
    stop(graceMs?: number): Promise<void>;
  }>;
  OtlpSink?: new (options: { otlpUrl: string; restUrl: string; token?: string }) => unknown;
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
  /** Collection rounds. @default 6 */
  rounds?: number;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs the real collector in node mode against the generated node for a few one-second rounds,
 * moving the node on between rounds, and ships through the OTLP sink (usage over OTLP/gRPC,
 * events and job records over REST). The server may not depend on the collector package, so
 * the demo loads the collector's build from the workspace at run time.
 */
export async function runDemoCollector(o: DemoCollectorOptions): Promise<{ rounds: number; transport: string }> {
  const url = pathToFileURL(join(o.repoRoot, "packages", "collector", "dist", "index.js")).href;
  const collector = (await import(url)) as CollectorModule;
  const config = collector.loadConfig({
    env: {},
    argv: [
      "--mode", "node",
      "--cluster", o.cluster,
      "--node", o.nodeName,
      "--interval", "1",
      "--cgroup-root", o.node.cgroupRoot,
      "--cgroup-version", "v2",
      "--proc-root", o.node.procRoot,
      "--gpu", "on",
      "--nvidia-smi", o.node.nvidiaSmi,
      "--kmsg", "true",
      "--kmsg-path", o.node.kmsgPath,
      "--spool-dir", o.node.spoolDir,
      "--url", o.restUrl,
      "--token", o.token,
      "--health", "false",
      "--log-level", "error",
    ],
  });
  // Until the collector's index exports OtlpSink, its REST sink ships everything.
  const sink = collector.OtlpSink
    ? new collector.OtlpSink({ otlpUrl: o.otlpGrpcUrl, restUrl: o.restUrl, token: o.token })
    : undefined;
  const running = await collector.startCollector({
    config,
    logger: collector.createLogger({ level: "error" }),
    sink,
    version: "demo",
  });
  const rounds = o.rounds ?? 6;
  try {
    for (let r = 1; r <= rounds; r++) {
      await sleep(1_100);
      o.node.round(r);
    }
    await sleep(1_500);
  } finally {
    await running.stop(10_000);
  }
  return { rounds, transport: sink ? "OTLP/gRPC (usage) + REST (events, jobs)" : "REST JSON (OtlpSink not exported by the collector build)" };
}
