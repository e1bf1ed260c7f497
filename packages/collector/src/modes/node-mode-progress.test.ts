import { chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateUsageSample } from "@jobsight/schemas";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProcReader } from "../sources/proc-reader.js";
import { DiskSpool } from "../spool/disk-spool.js";
import { CgroupTree } from "../test-support/cgroup-tree.js";
import { ProcTree } from "../test-support/proc-tree.js";
import { takeSpooled } from "../test-support/spool-contents.js";
import { JobProgressReader } from "./job-progress-reader.js";
import { NodeMode } from "./node-mode.js";

const slurmCg = (job: string) => `0::/system.slice/slurmstepd.scope/job_${job}/step_batch/user/task_0\n`;

describe("NodeMode with job progress", () => {
  let work: string;
  let tree: CgroupTree;
  let proc: ProcTree;
  let spool: DiskSpool;
  let clock: number;

  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), "jobsight-node-progress-"));
    tree = new CgroupTree();
    proc = new ProcTree();
    spool = await DiskSpool.open({ dir: join(work, "spool") });
    clock = Date.parse("2026-12-01T10:00:00Z");
  });
  afterEach(async () => {
    await spool.close();
    tree.cleanup();
    proc.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  const mode = (options: ConstructorParameters<typeof JobProgressReader>[0] | undefined = undefined) => {
    const reader = new ProcReader({ root: proc.root });
    return new NodeMode({
      cluster: "hpc1",
      node: "n01",
      spool,
      proc: reader,
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      topProcesses: 0,
      trimHeap: false,
      now: () => clock,
      progress: new JobProgressReader(options ?? { proc: reader }),
    });
  };

  /** A job with one process working in `dir`, its stdout and stderr going to `out`. */
  function job(
    jobId: string,
    pid: number,
    dir: string,
    extra: { environ?: Record<string, string>; out?: string } = {},
  ) {
    mkdirSync(dir, { recursive: true });
    tree.slurmJob(jobId);
    proc.add({ pid, comm: "python", cgroup: slurmCg(jobId), environ: extra.environ, starttime: 100 });
    proc.link(pid, {
      cwd: dir,
      fds: extra.out ? { 1: extra.out, 2: extra.out } : { 1: "/dev/null", 2: "pipe:[991]" },
    });
  }

  // Taking empties the spool: take once, then pick each job's samples.
  const spooled = async () => {
    const { samples } = await takeSpooled(spool);
    return (jobId: string) => samples.filter((s) => s.jobId === jobId && !s.final);
  };
  const samplesOf = async (jobId: string) => (await spooled())(jobId);

  it("sends the progress the job writes to .jobsight-progress in its working directory, round by round", async () => {
    const dir = join(work, "run1");
    job("61", 6100, dir);
    writeFileSync(join(dir, ".jobsight-progress"), "400/3000 step\n");
    const m = mode();
    await m.collect();
    writeFileSync(join(dir, ".jobsight-progress"), "410/3000 step\n");
    clock += 60_000;
    await m.collect();
    const samples = await samplesOf("61");
    expect(samples.map((s) => s.progress)).toEqual([
      { done: 400, total: 3000, unit: "step" },
      { done: 410, total: 3000, unit: "step" },
    ]);
    expect(validateUsageSample(samples[0])).toMatchObject({ ok: true });
  });

  it("prefers the file named by $JOBSIGHT_PROGRESS_FILE, relative to the working directory", async () => {
    const dir = join(work, "run2");
    job("62", 6200, dir, { environ: { JOBSIGHT_PROGRESS_FILE: "state/progress.txt" } });
    mkdirSync(join(dir, "state"));
    writeFileSync(join(dir, "state", "progress.txt"), "0.5\n");
    writeFileSync(join(dir, ".jobsight-progress"), "1/10\n");
    await mode().collect();
    expect((await samplesOf("62"))[0].progress).toEqual({ done: 50, total: 100, unit: "%" });
  });

  it("reads progress lines from the tail of the file stdout goes to, however long the log", async () => {
    const dir = join(work, "run3");
    const out = join(dir, "slurm-63.out");
    job("63", 6300, dir, { out });
    // Early epochs far back in a long log are out of reach; the latest is in the tail.
    writeFileSync(out, `Epoch 1/10\n${"x".repeat(64 * 1024)}\nEpoch 2/10 loss=0.5\nEpoch 3/10 loss=0.4\n`);
    await mode().collect();
    expect((await samplesOf("63"))[0].progress).toEqual({ done: 3, total: 10, unit: "epoch" });
  });

  it("sends no progress where none is measurable, and leaves out files of another owner", async () => {
    const dir = join(work, "run4");
    const out = join(dir, "out.log");
    job("64", 6400, dir, { out });
    writeFileSync(out, "loading data\nloss 0.3\n");
    const other = join(work, "run5");
    job("65", 6500, other);
    writeFileSync(join(other, ".jobsight-progress"), "5/10\n");
    chownSync(join(other, ".jobsight-progress"), statSync(join(proc.root, "6500")).uid + 4321, 0);
    const m = mode();
    await m.collect();
    expect(m.stats()).toMatchObject({ rounds: 1, failedRounds: 0 });
    const of = await spooled();
    for (const id of ["64", "65"]) {
      const [sample] = of(id);
      expect(sample.memory, id).toBeDefined();
      expect(sample.progress, id).toBeUndefined();
    }
  });

  it("turns output parsing off, and keeps collecting when /proc says nothing of files", async () => {
    const dir = join(work, "run6");
    const out = join(dir, "slurm-66.out");
    job("66", 6600, dir, { out });
    writeFileSync(out, "step 10/100\n");
    tree.slurmJob("67");
    proc.add({ pid: 6700, comm: "python", cgroup: slurmCg("67") }); // no cwd, root or fd links
    const m = mode({ proc: new ProcReader({ root: proc.root }), output: false });
    await m.collect();
    expect(m.stats()).toMatchObject({ rounds: 1, failedRounds: 0 });
    const of = await spooled();
    expect(of("66")[0].progress).toBeUndefined();
    expect(of("67")[0].memory).toBeDefined();
  });
});
