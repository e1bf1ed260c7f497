import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../log/logger.js";
import { ProcTree } from "../test-support/proc-tree.js";
import { ExclusiveNodeLoad, withoutInstantReadings } from "./instant-readings.js";

describe("ExclusiveNodeLoad", () => {
  const trees: ProcTree[] = [];
  afterEach(() => {
    for (const t of trees.splice(0)) t.cleanup();
  });
  const setup = () => {
    const proc = new ProcTree();
    trees.push(proc);
    const lines: string[] = [];
    const load = new ExclusiveNodeLoad({
      procRoot: proc.root,
      logger: createLogger({ write: (l) => lines.push(l) }),
    });
    return { proc, load, lines };
  };

  it("gives the node's load for a job alone on the node, less the collector's own running thread", () => {
    const { proc, load } = setup();
    proc.setLoadAverage({ one: 23.87, running: 25 });
    expect(load.read(1)).toEqual({ nodeLoad1: 23.87, nodeRunnable: 24 });
  });

  it("gives nothing while several jobs (or none) share the node: the load is not one job's", () => {
    const { proc, load } = setup();
    proc.setLoadAverage({ one: 23.87, running: 25 });
    expect(load.read(2)).toBeUndefined();
    expect(load.read(0)).toBeUndefined();
  });

  it("leaves the load out for a malformed file, says so once, and reads it again once it is whole", () => {
    const { proc, load, lines } = setup();
    writeFileSync(join(proc.root, "loadavg"), "garbage\n");
    expect(load.read(1)).toBeUndefined();
    expect(load.read(1)).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: "warn",
      msg: "node load left out of samples",
      error: { code: "SOURCE_MALFORMED" },
    });
    proc.setLoadAverage({ one: 1, running: 2 });
    expect(load.read(1)).toEqual({ nodeLoad1: 1, nodeRunnable: 1 });
  });

  it("gives nothing where procfs has no loadavg", () => {
    const load = new ExclusiveNodeLoad({
      procRoot: "/nonexistent-proc",
      logger: createLogger({ write: () => {} }),
    });
    expect(load.read(1)).toBeUndefined();
  });
});

describe("withoutInstantReadings", () => {
  it("drops the thread counts and the node's load, keeping the cgroup's counters", () => {
    const sample = {
      cluster: "hpc1",
      jobId: "1",
      node: "n01",
      time: "2026-12-01T10:00:00Z",
      cpu: {
        usageSeconds: 10,
        limitCores: 4,
        threads: 9,
        runnableThreads: 8,
        nodeLoad1: 7.5,
        nodeRunnable: 8,
      },
    };
    expect(withoutInstantReadings(sample).cpu).toEqual({ usageSeconds: 10, limitCores: 4 });
    const plain = { ...sample, cpu: { usageSeconds: 10 } };
    expect(withoutInstantReadings(plain)).toBe(plain);
  });
});
