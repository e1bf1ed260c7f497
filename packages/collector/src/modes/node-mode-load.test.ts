import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateUsageSample } from "@jobsight/schemas";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../log/logger.js";
import { ProcReader } from "../sources/proc-reader.js";
import { DiskSpool } from "../spool/disk-spool.js";
import { CgroupTree } from "../test-support/cgroup-tree.js";
import { ProcTree } from "../test-support/proc-tree.js";
import { takeSpooled } from "../test-support/spool-contents.js";
import { NodeMode } from "./node-mode.js";

describe("NodeMode and the node's load", () => {
  let work: string;
  let tree: CgroupTree;
  let proc: ProcTree;
  let spool: DiskSpool;
  let clock: number;
  const lines: string[] = [];

  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), "jobsight-node-load-"));
    tree = new CgroupTree();
    proc = new ProcTree();
    spool = await DiskSpool.open({ dir: join(work, "spool") });
    clock = Date.parse("2026-12-01T10:00:00Z");
    lines.length = 0;
  });
  afterEach(async () => {
    await spool.close();
    tree.cleanup();
    proc.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  const mode = () =>
    new NodeMode({
      cluster: "hpc1",
      node: "n01",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      topProcesses: 0,
      trimHeap: false,
      logger: createLogger({ write: (l) => lines.push(l) }),
      now: () => clock,
    });

  it("adds /proc/loadavg to the samples of a job alone on the node, and not to its final reading", async () => {
    const dir = tree.slurmJob("51", { cpuMaxCores: 8 });
    proc.setLoadAverage({ one: 14.2, five: 9.1, fifteen: 4.0, running: 13 });
    const m = mode();
    await m.collect();
    tree.remove(dir);
    clock += 10_000;
    await m.collect();
    const [live, final] = (await takeSpooled(spool)).samples;
    expect(live.cpu).toMatchObject({ limitCores: 8, nodeLoad1: 14.2, nodeRunnable: 12 });
    expect(validateUsageSample(live)).toMatchObject({ ok: true });
    expect(final.final).toBe(true);
    expect(final.cpu?.nodeLoad1).toBeUndefined();
    expect(final.cpu?.nodeRunnable).toBeUndefined();
  });

  it("leaves the load out while two jobs share the node, and adds it once one is left", async () => {
    tree.slurmJob("52");
    const second = tree.slurmJob("53");
    proc.setLoadAverage({ one: 30.5, running: 31 });
    const m = mode();
    await m.collect();
    tree.remove(second);
    clock += 10_000;
    await m.collect();
    const samples = (await takeSpooled(spool)).samples;
    const shared = samples.filter((s) => s.time === "2026-12-01T10:00:00.000Z");
    expect(shared.map((s) => s.jobId).sort()).toEqual(["52", "53"]);
    for (const s of shared) expect(s.cpu).not.toHaveProperty("nodeLoad1");
    for (const s of shared) expect(s.cpu).not.toHaveProperty("nodeRunnable");
    const alone = samples.find((s) => s.jobId === "52" && s.time === "2026-12-01T10:00:10.000Z")!;
    expect(alone.cpu).toMatchObject({ nodeLoad1: 30.5, nodeRunnable: 30 });
  });

  it("keeps collecting without the load when loadavg is garbled", async () => {
    tree.slurmJob("54");
    const m = mode();
    writeFileSync(join(proc.root, "loadavg"), "0.75 0.60 0.52\n");
    await m.collect();
    expect(m.stats()).toMatchObject({ rounds: 1, failedRounds: 0 });
    expect(lines.map((l) => JSON.parse(l))).toMatchObject([
      { level: "warn", msg: "node load left out of samples", error: { code: "SOURCE_MALFORMED" } },
    ]);
    const [sample] = (await takeSpooled(spool)).samples;
    expect(sample.cpu?.usageSeconds).toBeDefined();
    expect(sample.cpu).not.toHaveProperty("nodeLoad1");
  });
});
