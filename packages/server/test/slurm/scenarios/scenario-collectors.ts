import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SlurmClusterInfo } from "../../../../../test/slurm/index.js";
// The collector is a separate package the server may not depend on; this test drives its own
// sources, spool, shipper and sinks (its source, as its own tests do) against the server.
import {
  createLogger,
  loadConfig,
  OtlpSink,
  type RunningCollector,
  startCollector,
} from "../../../../collector/src/index.js";
import { slurmCommand } from "../slurm-collectors.js";

/** Where the collectors ship and as what. */
export type ScenarioCollectorTarget = {
  slurm: SlurmClusterInfo;
  cluster: string;
  restUrl: string;
  otlpUrl: string;
  token: string;
};

/** A collector started by {@link startScenarioCollector}. */
export type ScenarioCollector = {
  running: RunningCollector;
  /** Collection rounds done so far. */
  rounds(): number;
  /** Jobs the last round saw running (node mode; 0 for the controller). */
  jobsSeen(): number;
  /** Stop it (it ships what it spooled first), check nothing was refused, remove its folder. */
  stop(): Promise<void>;
};

/**
 * Starts one collector through its production wiring (`startCollector`, configuration parsed from
 * command-line flags as `jobsight-collector run` parses them), collecting every `intervalSeconds` and
 * shipping through the OTLP sink. `mode` is `slurm-controller` (squeue/sacct of the test cluster) or `node`
 * with the given extra flags (`--cgroup-version`, `--cgroup-root`, `--nvidia-smi`, `--kmsg-path`, …).
 *
 * @example
 * const node = await startScenarioCollector(target, "node", ["--cgroup-version", "none", "--gpu", "off"]);
 * await node.stop();
 */
export async function startScenarioCollector(
  target: ScenarioCollectorTarget,
  mode: "slurm-controller" | "node",
  flags: string[] = [],
  intervalSeconds = 1,
): Promise<ScenarioCollector> {
  const dir = await mkdtemp(join(tmpdir(), `jobsight-scenario-${mode}-`));
  const commands =
    mode === "slurm-controller"
      ? [
          ["--squeue", await slurmCommand(dir, target.slurm, "squeue")],
          ["--sacct", await slurmCommand(dir, target.slurm, "sacct")],
        ].flat()
      : [];
  const config = loadConfig({
    argv: [
      ["--mode", mode, "--cluster", target.cluster, "--node", target.slurm.node.name],
      ["--interval", String(intervalSeconds), "--health", "false", "--log-level", "error"],
      ["--spool-dir", join(dir, "spool"), ...commands, ...flags],
    ].flat(),
    env: {},
  });
  let running: RunningCollector;
  try {
    running = await startCollector({
      config,
      logger: createLogger({ level: config.log.level, base: { service: `jobsight-collector-${mode}` } }),
      sink: new OtlpSink({ otlpUrl: target.otlpUrl, restUrl: target.restUrl, token: target.token }),
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const report = () => running.report();
  return {
    running,
    rounds: () => {
      const c = report().collector as { rounds?: number; polls?: number };
      return c.rounds ?? c.polls ?? 0;
    },
    jobsSeen: () => (report().collector as { jobs?: number }).jobs ?? 0,
    async stop() {
      await running.stop(5_000);
      await rm(dir, { recursive: true, force: true });
      const ship = report().shipper as { rejectedBatches: number };
      if (ship.rejectedBatches > 0)
        throw new Error(`the ${mode} collector had ${ship.rejectedBatches} batches refused`);
    },
  };
}
