import { chmod, mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { findFreePort } from "../services/free-port.js";
import { CLUSTER_MARKER, launchDaemon } from "./daemons.js";
import { startMariaDb } from "./mariadb.js";
import { startMunge } from "./munge.js";
import { poll } from "./poll.js";
import { runCommand } from "./run-command.js";
import {
  CLUSTER_DIR_PREFIX,
  clusterPaths,
  parseNodeHardware,
  renderSlurmConf,
  renderSlurmdbdConf,
} from "./slurm-config.js";
import { SlurmTestError } from "./slurm-test-error.js";
import { stopClusterAt, stopClusterNow } from "./stop-cluster.js";
import type { SlurmClusterInfo } from "./types.js";

/** How {@link startSlurmCluster} builds the cluster. */
export type StartSlurmClusterOptions = {
  /** Folder in which the run's `jobsight-slurm-*` temp folder is made. @default os.tmpdir() */
  tmpDir?: string;
  /** `ClusterName` in slurm.conf and in the accounting database. @default "jobsight" */
  clusterName?: string;
  /** Name of the one (default) partition. @default "debug" */
  partition?: string;
  /** `DefMemPerCPU` in MB. @default 256 */
  defMemPerCpuMb?: number;
  /** Give up on a daemon that is not ready after this long. @default 90_000 */
  readyTimeoutMs?: number;
};

/** A started cluster: its description and the two ways to end it. */
export type RunningSlurmCluster = {
  info: Omit<SlurmClusterInfo, "timings">;
  /** Milliseconds per start phase. */
  phasesMs: Record<string, number>;
  /** Cancels jobs, stops each daemon by its pid file, ends leftovers, deletes the temp folder. */
  stop: () => Promise<void>;
  /** The same without awaiting anything, for signal and exit handlers. */
  stopNow: () => void;
};

/**
 * Starts munged, MariaDB, slurmdbd, slurmctld and slurmd in a fresh temp folder on free ports and
 * resolves once `sinfo` shows the node idle and `sacct` answers. On failure everything already
 * started is stopped and the folder removed before the error (with the daemons' log tails) is thrown.
 *
 * @example
 * const cluster = await startSlurmCluster();
 * try { console.log(cluster.info.confPath); } finally { await cluster.stop(); }
 */
export async function startSlurmCluster(
  options: StartSlurmClusterOptions = {},
): Promise<RunningSlurmCluster> {
  const {
    clusterName = "jobsight",
    partition = "debug",
    defMemPerCpuMb = 256,
    readyTimeoutMs = 90_000,
  } = options;
  const root = await mkdtemp(join(options.tmpDir ?? tmpdir(), CLUSTER_DIR_PREFIX));
  const paths = clusterPaths(root);
  const stop = () => stopClusterAt(root);
  const phasesMs: Record<string, number> = {};
  const phase = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const startedAt = performance.now();
    try {
      return await work();
    } finally {
      phasesMs[name] = Math.round(performance.now() - startedAt);
    }
  };

  try {
    // The owner's pid lets a later run tell an abandoned cluster (owner gone) from a live one.
    await writeFile(join(root, "owner.pid"), `${process.pid}\n`);
    for (const dir of [paths.state, paths.spool, paths.log, paths.run, paths.jobs, paths.munge])
      await mkdir(dir);
    // munged insists that clients can traverse to its socket; the key inside stays 0600.
    await chmod(root, 0o755);
    await chmod(paths.munge, 0o755);
    const binDir = dirname(await which("sbatch"));
    const env = {
      PATH: [binDir, process.env.PATH ?? "", "/usr/sbin:/usr/bin:/sbin:/bin"].join(delimiter),
      SLURM_CONF: paths.slurmConf,
      [CLUSTER_MARKER]: root,
    };
    const daemonEnv = { ...env, LANG: "C", HOME: root };
    const version = (await runCommand("slurmd", ["-V"], { env: daemonEnv })).stdout
      .trim()
      .replace(/^slurm\S*\s+/, "");
    const node = parseNodeHardware((await runCommand("slurmd", ["-C"], { env: daemonEnv })).stdout);
    const ports = await freePorts(["slurmctld", "slurmd", "slurmdbd", "mariadb"] as const);

    const [munge, mariadb] = await Promise.all([
      phase("munge", () =>
        startMunge(
          {
            dir: paths.munge,
            pidFile: join(paths.run, "munged.pid"),
            logFile: join(paths.log, "munged.log"),
          },
          daemonEnv,
        ),
      ),
      phase("mariadb", () =>
        startMariaDb({
          dataDir: paths.mariadbData,
          port: ports.mariadb,
          socket: join(paths.run, "mariadb.sock"),
          pidFile: join(paths.run, "mariadb.pid"),
          logFile: join(paths.log, "mariadb.log"),
          initFile: join(root, "mariadb-init.sql"),
          env: daemonEnv,
        }),
      ),
    ]);

    const config = {
      root,
      clusterName,
      controlHost: hostname().split(".")[0],
      node,
      partition,
      defMemPerCpuMb,
      ports,
      mungeSocket: munge.socket,
      mariadb,
    };
    await writeFile(paths.slurmConf, renderSlurmConf(config), { mode: 0o644 });
    await writeFile(paths.slurmdbdConf, renderSlurmdbdConf(config), { mode: 0o600 });

    const ready = { what: "", timeoutMs: readyTimeoutMs, intervalMs: 100 };
    await phase("slurmdbd", async () => {
      await launchDaemon("slurmdbd", [], daemonEnv);
      const answers = async () => {
        await runCommand("sacctmgr", ["-n", "-P", "list", "cluster"], { env, timeoutMs: 5_000 });
        return true;
      };
      await poll(answers, { ...ready, what: "slurmdbd answering sacctmgr" });
    });
    await phase("slurmctld+slurmd", async () => {
      await launchDaemon("slurmctld", [], daemonEnv);
      await launchDaemon("slurmd", [], daemonEnv);
      await poll(async () => nodeIdle(env), { ...ready, what: `node ${node.name} idle in sinfo` });
    });
    await phase("accounting", () =>
      // slurmctld registers the cluster (and its root association) with slurmdbd on first contact.
      poll(async () => clusterRegistered(env, clusterName), {
        ...ready,
        what: "cluster registered and sacct answering",
      }),
    );

    return {
      info: {
        available: true,
        version,
        root,
        confPath: paths.slurmConf,
        binDir,
        jobsDir: paths.jobs,
        env,
        clusterName,
        partition,
        node: { name: node.name, cpus: node.cpus, realMemoryMb: node.realMemoryMb },
        defMemPerCpuMb,
        ports,
        mungeSocket: munge.socket,
        mariadb,
      },
      phasesMs,
      stop,
      stopNow: () => stopClusterNow(root),
    };
  } catch (cause) {
    const logs = await logTails(paths.log);
    await stop().catch(() => {});
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new SlurmTestError("SLURM_START_FAILED", `SLURM test cluster did not start: ${message}${logs}`, {
      cause,
    });
  }
}

async function nodeIdle(env: NodeJS.ProcessEnv): Promise<true | undefined> {
  const { stdout } = await runCommand("sinfo", ["-h", "-N", "-o", "%T"], { env, timeoutMs: 5_000 });
  return stdout.trim() === "idle" ? true : undefined;
}

async function clusterRegistered(env: NodeJS.ProcessEnv, clusterName: string): Promise<true | undefined> {
  const { stdout } = await runCommand("sacctmgr", ["-n", "-P", "list", "cluster", "format=Cluster"], {
    env,
    timeoutMs: 5_000,
  });
  if (!stdout.split("\n").includes(clusterName)) return undefined;
  await runCommand("sacct", ["-n", "-a", "-X", "-P"], { env, timeoutMs: 5_000 });
  return true;
}

async function freePorts<const K extends string>(names: readonly K[]): Promise<Record<K, number>> {
  const ports = {} as Record<K, number>;
  const taken = new Set<number>();
  for (const name of names) {
    let port = await findFreePort();
    while (taken.has(port)) port = await findFreePort();
    taken.add(port);
    ports[name] = port;
  }
  return ports;
}

async function which(command: string): Promise<string> {
  const { stdout } = await runCommand("sh", ["-c", `command -v ${command}`], {
    env: { PATH: `${process.env.PATH ?? ""}:/usr/sbin:/usr/bin:/sbin:/bin` },
  });
  return stdout.trim();
}

async function logTails(logDir: string): Promise<string> {
  try {
    const files = await readdir(logDir);
    const tails = await Promise.all(
      files.map(async (file) => {
        const lines = (await readFile(join(logDir, file), "utf8")).trim().split("\n").slice(-15);
        return `\n--- ${file} (last lines) ---\n${lines.join("\n")}`;
      }),
    );
    return tails.join("");
  } catch {
    return "";
  }
}
