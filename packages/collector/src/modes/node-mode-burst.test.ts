// Many jobs starting at once must each be sampled in the round right after their first process
// (or cgroup) appears: no discovery interval of its own, no answer cached from a half-started job.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProcReader } from "../sources/proc-reader.js";
import { DiskSpool } from "../spool/disk-spool.js";
import { CgroupTree } from "../test-support/cgroup-tree.js";
import { ProcTree } from "../test-support/proc-tree.js";
import { takeSpooled } from "../test-support/spool-contents.js";
import { NodeMode } from "./node-mode.js";

const JOBS = Array.from({ length: 15 }, (_, i) => String(9000 + i));
const INTERVAL_MS = 2_000;

describe("NodeMode with many jobs starting at once", () => {
  let work: string;
  let spool: DiskSpool;
  let proc: ProcTree;
  let tree: CgroupTree;
  let clock: number;

  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), "jobsight-burst-"));
    spool = await DiskSpool.open({ dir: join(work, "spool") });
    proc = new ProcTree();
    tree = new CgroupTree();
    clock = Date.parse("2026-12-06T19:29:37Z");
  });
  afterEach(async () => {
    await spool.close();
    proc.cleanup();
    tree.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  /** One round at the clock, then the clock moves one interval on; returns the round's time. */
  async function tick(mode: NodeMode): Promise<string> {
    const at = new Date(clock).toISOString();
    await mode.collect();
    clock += INTERVAL_MS;
    return at;
  }

  async function firstSampleTimes(): Promise<Map<string, string>> {
    const first = new Map<string, string>();
    for (const s of (await takeSpooled(spool)).samples) if (!first.has(s.jobId)) first.set(s.jobId, s.time);
    return first;
  }

  it("samples every job of a burst without cgroups in the round after its batch script runs", async () => {
    const mode = new NodeMode({
      cluster: "hpc1",
      node: "vm",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "none",
      intervalMs: INTERVAL_MS,
      trimHeap: false,
      now: () => clock,
    });
    await tick(mode);
    // slurmd has forked every slurmstepd; the first five are still starting (no title yet, their
    // task not yet exec'd: a child still named slurmstepd), the other ten run their scripts.
    JOBS.forEach((id, i) => {
      const stepd = 100 + i * 10;
      const starting = i < 5;
      proc.add({
        pid: stepd,
        comm: "slurmstepd",
        cmdline: starting ? ["/usr/sbin/slurmstepd"] : [`slurmstepd: [${id}.batch]`],
      });
      proc.add({
        pid: stepd + 1,
        ppid: stepd,
        comm: starting ? "slurmstepd" : "slurm_script",
        environ: starting ? {} : { SLURM_JOB_ID: id },
      });
    });
    const second = await tick(mode);
    // The five finish starting: titled, and their tasks exec the batch script.
    JOBS.slice(0, 5).forEach((id, i) => {
      const stepd = 100 + i * 10;
      proc.add({ pid: stepd, comm: "slurmstepd", cmdline: [`slurmstepd: [${id}.batch]`] });
      proc.add({ pid: stepd + 1, ppid: stepd, comm: "slurm_script", environ: { SLURM_JOB_ID: id } });
    });
    const third = await tick(mode);
    await mode.stop();

    const first = await firstSampleTimes();
    expect(JOBS.map((id) => [id, first.get(id)])).toEqual(JOBS.map((id, i) => [id, i < 5 ? third : second]));
  });

  it("samples every job of a burst on cgroup v2 in the round after its cgroup appears", async () => {
    const mode = new NodeMode({
      cluster: "hpc1",
      node: "vm",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      intervalMs: INTERVAL_MS,
      trimHeap: false,
      now: () => clock,
    });
    await tick(mode);
    for (const id of JOBS) tree.slurmJob(id, { memoryCurrent: 64 * 2 ** 20 });
    const second = await tick(mode);
    await mode.stop();

    const first = await firstSampleTimes();
    expect(JOBS.map((id) => [id, first.get(id)])).toEqual(JOBS.map((id) => [id, second]));
  });
});
