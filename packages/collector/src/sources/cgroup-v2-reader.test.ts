import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { CgroupTree, writeCgroupV2Dir } from "../test-support/cgroup-tree.js";
import { CgroupV2Reader } from "./cgroup-v2-reader.js";

describe("CgroupV2Reader", () => {
  let tree: CgroupTree;
  afterEach(() => tree.cleanup());

  it("reads every figure of a job's cgroup in the schema's units", () => {
    tree = new CgroupTree();
    const dir = tree.slurmJob("42", {
      anon: 1_000_000,
      file: 200_000,
      shmem: 50_000,
      memoryCurrent: 1_300_000,
      memoryPeak: 2_000_000,
      memoryMax: 4_194_304,
      swapCurrent: 4096,
      oom: 2,
      oomKill: 1,
      usageUsec: 90_500_000,
      userUsec: 80_000_000,
      systemUsec: 10_500_000,
      nrPeriods: 1000,
      nrThrottled: 25,
      throttledUsec: 1_500_000,
      cpuMaxCores: 4,
      io: [
        { device: "8:0", rbytes: 100, wbytes: 200, rios: 1, wios: 2 },
        { device: "8:16", rbytes: 1000, wbytes: 2000, rios: 10, wios: 20 },
      ],
      pids: 17,
      cpuSomeAvg10: 12.5,
      memorySomeAvg10: 3.25,
      memoryFullAvg10: 1.5,
      ioSomeAvg10: 0.75,
      ioFullAvg10: 0.25,
    });
    const usage = new CgroupV2Reader().read(dir);
    expect(usage).toEqual({
      memory: {
        currentBytes: 1_300_000,
        peakBytes: 2_000_000,
        limitBytes: 4_194_304,
        anonBytes: 1_000_000,
        fileBytes: 200_000,
        shmemBytes: 50_000,
        swapBytes: 4096,
        oomEvents: 2,
        oomKillEvents: 1,
      },
      cpu: {
        usageSeconds: 90.5,
        userSeconds: 80,
        systemSeconds: 10.5,
        periods: 1000,
        throttledPeriods: 25,
        throttledSeconds: 1.5,
        limitCores: 4,
      },
      io: { readBytes: 1100, writeBytes: 2200, readOps: 11, writeOps: 22 },
      pids: 17,
      pressure: { cpuSome: 12.5, memorySome: 3.25, memoryFull: 1.5, ioSome: 0.75, ioFull: 0.25 },
    });
  });

  it("leaves the limits out when memory.max and cpu.max say max", () => {
    tree = new CgroupTree();
    const dir = tree.slurmJob("1", { memoryMax: null, cpuMaxCores: null, memoryPeak: 5 });
    const usage = new CgroupV2Reader().read(dir)!;
    expect(usage.memory?.limitBytes).toBeUndefined();
    expect(usage.cpu?.limitCores).toBeUndefined();
  });

  it("falls back to the largest memory.current seen where memory.peak is missing", () => {
    tree = new CgroupTree();
    const dir = tree.slurmJob("1", { memoryCurrent: 500 });
    const reader = new CgroupV2Reader();
    expect(reader.read(dir)?.memory?.peakBytes).toBe(500);
    writeCgroupV2Dir(dir, { memoryCurrent: 900 });
    expect(reader.read(dir)?.memory?.peakBytes).toBe(900);
    writeCgroupV2Dir(dir, { memoryCurrent: 300 });
    expect(reader.read(dir)?.memory).toMatchObject({ currentBytes: 300, peakBytes: 900 });
    reader.forget(dir);
    expect(reader.read(dir)?.memory?.peakBytes).toBe(300);
  });

  it("returns undefined, without throwing, for a cgroup that is gone", () => {
    tree = new CgroupTree();
    const dir = tree.slurmJob("1");
    rmSync(dir, { recursive: true });
    expect(new CgroupV2Reader().read(dir)).toBeUndefined();
  });

  it("reads what exists when a controller is not enabled", () => {
    tree = new CgroupTree();
    const dir = tree.slurmJob("1", { memoryPeak: 10 });
    rmSync(`${dir}/io.stat`);
    rmSync(`${dir}/cpu.max`);
    rmSync(`${dir}/memory.pressure`);
    const usage = new CgroupV2Reader().read(dir)!;
    expect(usage.io).toBeUndefined();
    expect(usage.cpu?.usageSeconds).toBeGreaterThan(0);
    expect(usage.pressure?.memorySome).toBeUndefined();
    expect(usage.pressure?.cpuSome).toBe(0);
  });
});
