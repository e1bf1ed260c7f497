import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SlurmClusterInfo } from "../../../../test/slurm/index.js";
// The collector is a separate package the server may not depend on; this end-to-end test drives
// its own sources, spool, shipper and sinks (its source, as its own tests do) against the server.
import {
  type CollectorConfig,
  createLogger,
  loadConfig,
  OtlpSink,
  type RunningCollector,
  startCollector,
} from "../../../collector/src/index.js";

/** Options of {@link startSlurmCollectors}. */
export type SlurmCollectorsOptions = {
  slurm: SlurmClusterInfo;
  /** Jobsight's id of the cluster (what the collector token is bound to). */
  cluster: string;
  /** Base URL of the server's REST API. */
  restUrl: string;
  /** The server's OTLP/gRPC endpoint. */
  otlpUrl: string;
  /** Collector token bound to `cluster`. */
  token: string;
};

/** A controller-mode and a node-mode collector, as a site runs them. */
export type SlurmCollectors = {
  controller: RunningCollector;
  node: RunningCollector;
  /** Stop both (each ships what it spooled first) and remove their spools. */
  stop(): Promise<void>;
};

/**
 * `squeue`/`sacct` that reach the test cluster: a site's controller host has `SLURM_CONF` in its
 * environment; this test process does not, and must not change its own environment for it.
 */
export async function slurmCommand(dir: string, slurm: SlurmClusterInfo, name: string): Promise<string> {
  const file = join(dir, name);
  const exports = Object.entries(slurm.env).map(([k, v]) => `export ${k}='${v.replaceAll("'", "'\\''")}'`);
  await writeFile(file, ["#!/bin/sh", ...exports, `exec '${join(slurm.binDir, name)}' "$@"`, ""].join("\n"));
  await chmod(file, 0o755);
  return file;
}

/**
 * Starts the collector twice through its production wiring (`startCollector`: disk spool, mode,
 * shipper) with configuration parsed from command-line flags as `jobsight-collector run` parses
 * them: `slurm-controller` mode polling squeue/sacct, and `node` mode reading /proc for the node
 * (no cgroups on this cluster: processes are attributed through their `slurmstepd` ancestor). Both
 * ship through the OTLP sink: usage samples as OTLP/gRPC metrics, job records over REST. Both
 * collect every second.
 *
 * @example
 * const collectors = await startSlurmCollectors({ slurm, cluster, restUrl, otlpUrl, token });
 * await collectors.stop();
 */
export async function startSlurmCollectors(options: SlurmCollectorsOptions): Promise<SlurmCollectors> {
  const dir = await mkdtemp(join(tmpdir(), "jobsight-e2e-collectors-"));
  const squeue = await slurmCommand(dir, options.slurm, "squeue");
  const sacct = await slurmCommand(dir, options.slurm, "sacct");
  const common = [
    ["--cluster", options.cluster],
    ["--node", options.slurm.node.name],
    ["--interval", "1"],
    ["--health", "false"],
    ["--log-level", "error"],
  ].flat();
  const config = (argv: string[]): CollectorConfig => loadConfig({ argv: [...common, ...argv], env: {} });
  const start = (c: CollectorConfig) =>
    startCollector({
      config: c,
      logger: createLogger({ level: c.log.level, base: { service: `jobsight-collector-${c.mode}` } }),
      sink: new OtlpSink({ otlpUrl: options.otlpUrl, restUrl: options.restUrl, token: options.token }),
    });
  const running: RunningCollector[] = [];
  try {
    const controller = await start(
      config(
        [
          ["--mode", "slurm-controller", "--spool-dir", join(dir, "controller")],
          ["--squeue", squeue, "--sacct", sacct],
        ].flat(),
      ),
    );
    running.push(controller);
    const node = await start(
      config(
        [
          ["--mode", "node", "--spool-dir", join(dir, "node")],
          ["--cgroup-version", "none", "--gpu", "off", "--kmsg", "false"],
        ].flat(),
      ),
    );
    running.push(node);
    return {
      controller,
      node,
      async stop() {
        await Promise.all(running.map((r) => r.stop(5_000)));
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all(running.map((r) => r.stop(1_000)));
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
