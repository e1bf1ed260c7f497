import { afterEach, describe, expect, it } from "vitest";
import { CgroupV1Tree } from "../test-support/cgroup-v1-tree.js";
import { CgroupV1Discovery } from "./cgroup-v1-discovery.js";
import { CgroupV1Reader } from "./cgroup-v1-reader.js";

describe("cgroup v1", () => {
  let tree: CgroupV1Tree;
  afterEach(() => tree.cleanup());

  it("discovers SLURM jobs under slurm/uid_<uid>/job_<id> with their steps", () => {
    tree = new CgroupV1Tree();
    tree.slurmJob(1000, "42", {}, ["extern", "batch", "0"]);
    tree.slurmJob(1001, "43");
    const jobs = new CgroupV1Discovery({ root: tree.root }).discover();
    expect(jobs.map((j) => [j.jobId, j.uid]).sort()).toEqual([
      ["42", 1000],
      ["43", 1001],
    ]);
    expect(
      jobs
        .find((j) => j.jobId === "42")
        ?.steps.map((s) => s.step)
        .sort(),
    ).toEqual(["0", "batch", "extern"]);
  });

  it("reads usage, max usage, limit, total_* stats and cpuacct in the schema's units", () => {
    tree = new CgroupV1Tree();
    const dir = tree.slurmJob(1000, "42", {
      usage: 600_000_000,
      maxUsage: 900_000_000,
      limit: 1_073_741_824,
      totalRss: 500_000_000,
      totalCache: 90_000_000,
      totalShmem: 1_000_000,
      totalSwap: 0,
      oomKill: 1,
      cpuacctUsageNs: 42_500_000_000,
      userTicks: 4000,
      systemTicks: 250,
      cfsQuotaUs: 200_000,
      pids: 9,
      readBytes: 1000,
      writeBytes: 3000,
    });
    expect(new CgroupV1Reader({ root: tree.root }).read(dir)).toEqual({
      memory: {
        currentBytes: 600_000_000,
        peakBytes: 900_000_000,
        limitBytes: 1_073_741_824,
        anonBytes: 500_000_000,
        fileBytes: 90_000_000,
        shmemBytes: 1_000_000,
        swapBytes: 0,
        oomKillEvents: 1,
      },
      cpu: {
        usageSeconds: 42.5,
        userSeconds: 40,
        systemSeconds: 2.5,
        periods: 0,
        throttledPeriods: 0,
        throttledSeconds: 0,
        limitCores: 2,
      },
      pids: 9,
      io: { readBytes: 1000, writeBytes: 3000, readOps: 3, writeOps: 5 },
    });
  });

  it("treats the kernel's huge limit value as unlimited and a missing job as gone", () => {
    tree = new CgroupV1Tree();
    const dir = tree.slurmJob(1000, "7");
    const reader = new CgroupV1Reader({ root: tree.root });
    expect(reader.read(dir)?.memory?.limitBytes).toBeUndefined();
    expect(reader.read(`${tree.root}/memory/slurm/uid_1000/job_8`)).toBeUndefined();
  });
});
