import { join } from "node:path";
import { SlurmTestError } from "./slurm-test-error.js";

/** The node as `slurmd -C` sees it: the attributes SLURM itself would put in `slurm.conf`. */
export type NodeHardware = {
  name: string;
  cpus: number;
  realMemoryMb: number;
  /** `CPUs=… Boards=… SocketsPerBoard=… CoresPerSocket=… ThreadsPerCore=… RealMemory=…`, as printed. */
  attributes: string;
};

/** What the generated `slurm.conf` and `slurmdbd.conf` need to know. */
export type SlurmConfigOptions = {
  /** The run's temp folder; state, spool, logs and pid files go in its sub-folders. */
  root: string;
  clusterName: string;
  /** Short host name of this machine: slurmctld refuses to start under any other. */
  controlHost: string;
  node: NodeHardware;
  partition: string;
  defMemPerCpuMb: number;
  ports: { slurmctld: number; slurmd: number; slurmdbd: number; mariadb: number };
  mungeSocket: string;
  mariadb: { user: string; password: string; database: string };
};

/** Folder prefix of every harness cluster; teardown and the stale-cluster sweep touch only these. */
export const CLUSTER_DIR_PREFIX = "jobsight-slurm-";

/** Sub-folders of the run's temp folder, one place so the daemons and the teardown agree. */
export function clusterPaths(root: string) {
  return {
    state: join(root, "state"),
    spool: join(root, "spool"),
    log: join(root, "log"),
    run: join(root, "run"),
    jobs: join(root, "jobs"),
    munge: join(root, "munge"),
    mariadbData: join(root, "mariadb"),
    slurmConf: join(root, "slurm.conf"),
    slurmdbdConf: join(root, "slurmdbd.conf"),
  };
}

/**
 * Reads the first line of `slurmd -C` (`NodeName=vm CPUs=2 … RealMemory=24105`).
 *
 * @example
 * parseNodeHardware("NodeName=vm CPUs=2 Boards=1 RealMemory=24105\nUpTime=0-00:14:08").cpus; // 2
 */
export function parseNodeHardware(output: string): NodeHardware {
  const line = output.split("\n").find((l) => l.startsWith("NodeName=")) ?? "";
  const fields = new Map(
    line
      .trim()
      .split(/\s+/)
      .map((pair) => pair.split("=", 2) as [string, string]),
  );
  const name = fields.get("NodeName");
  const cpus = Number(fields.get("CPUs"));
  const realMemoryMb = Number(fields.get("RealMemory"));
  if (!name || !(cpus > 0) || !(realMemoryMb > 0)) {
    throw new SlurmTestError("SLURM_START_FAILED", `cannot read the node from 'slurmd -C': ${output.trim()}`);
  }
  const attributes = line.trim().split(/\s+/).slice(1).join(" ");
  return { name, cpus, realMemoryMb, attributes };
}

/**
 * `slurm.conf` for a single node without cgroups (see shared/slurm/README.md): process tracking
 * and memory enforcement by polling /proc, accounting through slurmdbd, every path under `root`.
 */
export function renderSlurmConf(options: SlurmConfigOptions): string {
  const { root, clusterName, controlHost, node, partition, defMemPerCpuMb, ports, mungeSocket } = options;
  const paths = clusterPaths(root);
  return [
    `ClusterName=${clusterName}`,
    `SlurmctldHost=${controlHost}(127.0.0.1)`,
    `SlurmctldPort=${ports.slurmctld}`,
    `SlurmdPort=${ports.slurmd}`,
    "SlurmUser=root",
    "SlurmdUser=root",
    "AuthType=auth/munge",
    `AuthInfo=socket=${mungeSocket}`,
    `StateSaveLocation=${paths.state}`,
    `SlurmdSpoolDir=${paths.spool}`,
    `SlurmctldPidFile=${join(paths.run, "slurmctld.pid")}`,
    `SlurmdPidFile=${join(paths.run, "slurmd.pid")}`,
    `SlurmctldLogFile=${join(paths.log, "slurmctld.log")}`,
    `SlurmdLogFile=${join(paths.log, "slurmd.log")}`,
    // "verbose" adds slurmstepd's "task 0 (<pid>) started": when a job's first process really began.
    "SlurmdDebug=verbose",
    "MailProg=/bin/true",
    "MpiDefault=none",
    "ReturnToService=2",
    // No cgroups here: track processes by their parentage and enforce --mem by polling RSS.
    "ProctrackType=proctrack/linuxproc",
    "TaskPlugin=task/none",
    "JobAcctGatherType=jobacct_gather/linux",
    "JobAcctGatherFrequency=task=1",
    "JobAcctGatherParams=OverMemoryKill",
    "SelectType=select/cons_tres",
    "SelectTypeParameters=CR_Core_Memory",
    // Without it a job with no --mem takes the whole node's memory and blocks every other job.
    `DefMemPerCPU=${defMemPerCpuMb}`,
    // Finished jobs stay visible to `squeue --json` for the whole run, not only 5 minutes.
    "MinJobAge=3600",
    "KillWait=5",
    "AccountingStorageType=accounting_storage/slurmdbd",
    "AccountingStorageHost=127.0.0.1",
    `AccountingStoragePort=${ports.slurmdbd}`,
    // With a non-default munge socket this must name it too, or slurmctld exits ("no TRES").
    `AccountingStoragePass=${mungeSocket}`,
    "JobCompType=jobcomp/none",
    // Job ids from a random start: a node collector reads every /proc on the machine, so two test
    // clusters running side by side must not both have a job 11 (attribution by SLURM_JOB_ID).
    `FirstJobId=${firstJobId()}`,
    `NodeName=${node.name} NodeAddr=127.0.0.1 ${node.attributes} State=UNKNOWN`,
    // The node has the machine's real cores (2 here); letting jobs share them keeps the reference
    // jobs (two of which run for over a minute) from queueing behind each other. Memory stays exact.
    `PartitionName=${partition} Nodes=${node.name} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8`,
    "",
  ].join("\n");
}

/** `slurmdbd.conf` storing accounting in the run's MariaDB; must be mode 0600 and owned by SlurmUser. */
export function renderSlurmdbdConf(options: SlurmConfigOptions): string {
  const { root, ports, mungeSocket, mariadb } = options;
  const paths = clusterPaths(root);
  return [
    "AuthType=auth/munge",
    `AuthInfo=socket=${mungeSocket}`,
    "DbdHost=localhost",
    "DbdAddr=127.0.0.1",
    `DbdPort=${ports.slurmdbd}`,
    "SlurmUser=root",
    `LogFile=${join(paths.log, "slurmdbd.log")}`,
    `PidFile=${join(paths.run, "slurmdbd.pid")}`,
    "StorageType=accounting_storage/mysql",
    "StorageHost=127.0.0.1",
    `StoragePort=${ports.mariadb}`,
    `StorageUser=${mariadb.user}`,
    `StoragePass=${mariadb.password}`,
    `StorageLoc=${mariadb.database}`,
    "",
  ].join("\n");
}

/** A first job id unlikely to overlap another cluster's ids on the same machine (below MaxJobId, 67043328). */
function firstJobId(): number {
  return 1000 * (1 + Math.floor(Math.random() * 60_000));
}
