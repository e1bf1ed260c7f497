import type { TestProject } from "vitest/node";
import { startSlurmCluster } from "./cluster.js";
import { ensureSlurmPackages } from "./install.js";
import { submitReferenceJobs } from "./jobs.js";
import { SlurmClient } from "./slurm-client.js";
import { SlurmTestError } from "./slurm-test-error.js";
import { sweepStaleClusters } from "./stale-clusters.js";
import { SLURM_CLUSTER_KEY, type SlurmClusterInfo } from "./types.js";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Vitest global setup of the "slurm" project: installs the Debian packages if missing, starts ONE
 * single-node cluster for the run, submits the reference jobs, provides the cluster to the test
 * files and returns the teardown that stops it (also run on SIGINT/SIGTERM/SIGHUP and at exit).
 *
 * Where the cluster cannot run (not Linux, not root, no apt-get, install failed) the tests are
 * skipped with the reason, except under `CI`, where that is an error: CI must not pass by skipping.
 * `JOBSIGHT_TEST_SLURM=off` skips deliberately (also refused under `CI`).
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const unavailable = (reason: string) => {
    if (process.env.CI) {
      throw new SlurmTestError("SLURM_UNAVAILABLE", `the SLURM tests must run in CI, but: ${reason}`);
    }
    console.warn(`[slurm] cluster not started, SLURM tests are skipped: ${reason}`);
    project.provide(SLURM_CLUSTER_KEY, { available: false, reason });
    return undefined;
  };
  if (process.env.JOBSIGHT_TEST_SLURM === "off") return unavailable("JOBSIGHT_TEST_SLURM=off");

  const install = await ensureSlurmPackages();
  if (!install.ok) return unavailable(install.reason);

  const swept = sweepStaleClusters();
  if (swept.length > 0)
    console.warn(`[slurm] ended ${swept.length} cluster(s) left by killed runs: ${swept.join(", ")}`);

  const startedAt = performance.now();
  const cluster = await startSlurmCluster();
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    cluster.stopNow();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    stopNow();
    removeHandlers();
    // Nobody else handles it: let the signal do what it would have done without us.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const removeHandlers = () => {
    for (const signal of SIGNALS) process.off(signal, onSignal);
    process.off("exit", stopNow);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on("exit", stopNow);

  const teardown = async () => {
    removeHandlers();
    if (stopped) return;
    stopped = true;
    const stoppingAt = performance.now();
    await cluster.stop();
    console.log(`[slurm] cluster stopped in ${Math.round(performance.now() - stoppingAt)} ms`);
  };

  try {
    const startMs = Math.round(performance.now() - startedAt);
    const info: SlurmClusterInfo = {
      ...cluster.info,
      timings: { installMs: install.ms, startMs, phasesMs: cluster.phasesMs },
    };
    const submittedAt = performance.now();
    await submitReferenceJobs(new SlurmClient(info));
    const submitMs = Math.round(performance.now() - submittedAt);
    project.provide(SLURM_CLUSTER_KEY, info);
    const phases = Object.entries(cluster.phasesMs)
      .map(([name, ms]) => `${name} ${ms}`)
      .join(", ");
    console.log(
      `[slurm] SLURM ${info.version} cluster "${info.clusterName}" up: packages ${install.ms} ms, ` +
        `start ${startMs} ms (${phases}), reference jobs ${submitMs} ms; ${info.confPath}`,
    );
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
