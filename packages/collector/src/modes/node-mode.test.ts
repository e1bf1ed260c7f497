import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateNodeEvent, validateUsageSample } from "@jobsight/schemas";
import type { NodeEvent, UsageSample } from "@jobsight/schemas/light";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../log/logger.js";
import { NvidiaSmi } from "../sources/gpu/nvidia-smi.js";
import { KernelLog } from "../sources/kernel-log.js";
import { ProcReader } from "../sources/proc-reader.js";
import { DiskSpool } from "../spool/disk-spool.js";
import { CgroupTree } from "../test-support/cgroup-tree.js";
import { fakeCommand } from "../test-support/fake-command.js";
import { FullDisk } from "../test-support/full-disk.js";
import { ProcTree } from "../test-support/proc-tree.js";
import { takeSpooled } from "../test-support/spool-contents.js";
import { NodeMode } from "./node-mode.js";

const MiB = 1024 * 1024;
const POD = "4a5b6c7d-1111-2222-3333-444455556666";

async function spooled(spool: DiskSpool): Promise<{ samples: UsageSample[]; events: NodeEvent[] }> {
  return takeSpooled(spool);
}

describe("NodeMode", () => {
  let work: string;
  let tree: CgroupTree;
  let proc: ProcTree;
  let spool: DiskSpool;
  const cleanups: (() => unknown)[] = [];
  let clock: number;

  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), "jobsight-node-"));
    tree = new CgroupTree();
    proc = new ProcTree();
    spool = await DiskSpool.open({ dir: join(work, "spool") });
    clock = Date.parse("2026-12-01T10:00:00Z");
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
    await spool.close();
    tree.cleanup();
    proc.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it("reads every running job, names its notable processes and GPUs, and spools kernel events", async () => {
    tree.slurmJob("4242", {
      memoryCurrent: 3 * 1024 * MiB,
      memoryPeak: 4 * 1024 * MiB,
      memoryMax: 8 * 1024 * MiB,
      steps: ["extern", "batch", "0"],
    });
    tree.slurmJob("4243", { nodePrefix: "n02", memoryPeak: null });
    tree.pod(POD, { qos: "guaranteed", containers: ["c1"] });
    const jobCg = "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n";
    proc.add({ pid: 4100, comm: "python", rssBytes: 2900 * MiB, cgroup: jobCg });
    proc.add({ pid: 4101, comm: "loader", state: "D", rssBytes: 10 * MiB, cgroup: jobCg });
    proc.add({ pid: 900, comm: "sshd", rssBytes: 5 * MiB });
    const smi = fakeCommand(
      "nvidia-smi",
      `case "$*" in
  *compute-apps*) echo "4100, GPU-aaaa, 30000" ;;
  *) while :; do echo "0, GPU-aaaa, 00000000:3B:00.0, 97, 30000, 40960, 300.5, 70"; echo "1, GPU-bbbb, 00000000:5E:00.0, 0, 0, 40960, 50.0, 30"; sleep 0.05; done ;;
esac`,
    );
    const gpus = new NvidiaSmi({ command: smi.path, intervalMs: 50 });
    cleanups.push(() => gpus.stop(), smi.cleanup);
    gpus.start();
    await vi.waitFor(() => expect(gpus.latest()).toHaveLength(2));
    const kmsgPath = join(work, "kmsg");
    writeFileSync(
      kmsgPath,
      "4,1,5000000,-;NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n",
    );
    const kernelLog = new KernelLog({
      cluster: "hpc1",
      node: "n01",
      path: kmsgPath,
      bootTimeMs: clock - 3600_000,
    });
    const mode = new NodeMode({
      cluster: "hpc1",
      node: "n01",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      gpus,
      kernelLog,
      now: () => clock,
    });
    await mode.collect();
    const { samples, events } = await spooled(spool);
    expect(samples.map((s) => [s.jobId, s.node]).sort()).toEqual([
      ["4242", "n01"],
      ["4243", "n02"],
      [POD, "n01"],
    ]);
    for (const s of samples) expect(validateUsageSample(s)).toMatchObject({ ok: true });
    const j = samples.find((s) => s.jobId === "4242")!;
    expect(j.time).toBe("2026-12-01T10:00:00.000Z");
    expect(j.memory).toMatchObject({
      currentBytes: 3 * 1024 * MiB,
      peakBytes: 4 * 1024 * MiB,
      limitBytes: 8 * 1024 * MiB,
    });
    expect(j.processes).toEqual([
      { pid: 4100, command: "python", rssBytes: 2900 * MiB, state: "S" },
      { pid: 4101, command: "loader", rssBytes: 10 * MiB, state: "D" },
    ]);
    expect(j.gpus?.map((g) => [g.index, g.utilizationPercent])).toEqual([[0, 97]]);
    expect(samples.find((s) => s.jobId === "4243")?.gpus).toBeUndefined();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      kind: "gpu_xid",
      jobId: "4242",
      xid: { code: 79, pciBusId: "0000:3b:00" },
    });
    expect(validateNodeEvent(events[0]).ok).toBe(true);
    expect(mode.stats()).toMatchObject({ rounds: 1, jobs: 3, invalidSamples: 0 });
    kernelLog.close();
  });

  const slurmCg = (job: string) => `0::/system.slice/slurmstepd.scope/job_${job}/step_batch/user/task_0\n`;

  it("gives a SLURM job the GPUs it was allocated even when nothing runs on them", async () => {
    tree.slurmJob("4300");
    tree.slurmJob("4242");
    tree.slurmJob("4301");
    // Job 4300 holds /dev/nvidia0 (index 1 here: minors follow probe order, indices PCI order) and runs nothing on it.
    proc.add({ pid: 4200, comm: "sleep", cgroup: slurmCg("4300"), environ: { SLURM_JOB_GPUS: "0" } });
    proc.add({ pid: 4100, comm: "python", cgroup: slurmCg("4242"), environ: { SLURM_JOB_GPUS: "1" } });
    proc.add({ pid: 4102, comm: "python", cgroup: slurmCg("4242"), environ: { SLURM_JOB_GPUS: "1" } });
    proc.add({
      pid: 4400,
      comm: "bash",
      cgroup: slurmCg("4301"),
      environ: { CUDA_VISIBLE_DEVICES: "GPU-dddd" },
    });
    const smi = fakeCommand(
      "nvidia-smi",
      `case "$*" in
  *compute-apps*) echo "4100, GPU-aaaa, 30000"; echo "4102, GPU-cccc, 500" ;;
  *) while :; do
       echo "0, GPU-aaaa, 00000000:07:00.0, 97, 30000, 81920, 300.5, 70, 1"
       echo "1, GPU-bbbb, 00000000:0F:00.0, 0, 0, 81920, 61.0, 31, 0"
       echo "2, GPU-cccc, 00000000:47:00.0, 12, 500, 81920, 90.0, 40, 2"
       echo "3, GPU-dddd, 00000000:4E:00.0, 0, 0, 81920, 60.0, 30, 3"
       sleep 0.05; done ;;
esac`,
    );
    const gpus = new NvidiaSmi({ command: smi.path, intervalMs: 1000 });
    cleanups.push(() => gpus.stop(), smi.cleanup);
    gpus.start();
    await vi.waitFor(() => expect(gpus.latest()).toHaveLength(4), { timeout: 5000 });
    const lines: string[] = [];
    const mode = new NodeMode({
      cluster: "hpc1",
      node: "n01",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      topProcesses: 0,
      gpus,
      now: () => clock,
      logger: createLogger({ write: (l) => lines.push(l) }),
    });
    await mode.collect();
    const { samples } = await spooled(spool);
    const gpusOf = (job: string) =>
      samples.find((s) => s.jobId === job)?.gpus?.map((g) => [g.index, g.uuid, g.utilizationPercent]);
    expect(gpusOf("4300")).toEqual([[1, "GPU-bbbb", 0]]);
    expect(gpusOf("4301")).toEqual([[3, "GPU-dddd", 0]]);
    // A process on a GPU outside the job's allocation still counts for the job, and is noted.
    expect(gpusOf("4242")).toEqual([
      [0, "GPU-aaaa", 97],
      [2, "GPU-cccc", 12],
    ]);
    for (const s of samples) expect(validateUsageSample(s)).toMatchObject({ ok: true });
    const noted = lines.map((l) => JSON.parse(l)).filter((l) => /outside its allocation/.test(l.msg));
    expect(noted).toMatchObject([{ jobId: "4242", pid: 4102, gpu: 2 }]);
  });

  for (const withXid of [true, false]) {
    it(`records a GPU nvidia-smi finds lost on the job that held it${withXid ? ", with the kernel's Xid" : ""}`, async () => {
      clock = Date.now();
      tree.slurmJob("4300");
      proc.add({ pid: 4200, comm: "sleep", cgroup: slurmCg("4300"), environ: { SLURM_JOB_GPUS: "0" } });
      const smi = fakeCommand(
        "nvidia-smi",
        `d="$(dirname "$0")"
echo start >> "$d/starts"
case "$*" in *compute-apps*) exit 0 ;; esac
while :; do
  if [ -f "$d/lost" ]; then
    echo "Unable to determine the device handle for GPU 0000:0F:00.0: GPU is lost.  Reboot the system to recover this GPU"
    exit 15
  fi
  echo "0, GPU-aaaa, 00000000:07:00.0, 97, 30000, 81920, 300.5, 70, 1"
  echo "1, GPU-bbbb, 00000000:0F:00.0, 0, 0, 81920, 61.0, 31, 0"
  sleep 0.05
done`,
      );
      const gpus = new NvidiaSmi({
        command: smi.path,
        intervalMs: 1000,
        restartDelayMs: 20,
        unavailableRetryMs: 20,
      });
      cleanups.push(() => gpus.stop(), smi.cleanup);
      gpus.start();
      await vi.waitFor(() => expect(gpus.latest()).toHaveLength(2), { timeout: 5000 });
      const kmsgPath = join(work, "kmsg");
      writeFileSync(kmsgPath, "");
      const kernelLog = new KernelLog({
        cluster: "hpc1",
        node: "n01",
        path: kmsgPath,
        bootTimeMs: clock - 3600_000,
      });
      cleanups.push(() => kernelLog.close());
      const mode = new NodeMode({
        cluster: "hpc1",
        node: "n01",
        spool,
        proc: new ProcReader({ root: proc.root }),
        cgroupVersion: "v2",
        cgroupRoot: tree.root,
        gpus,
        kernelLog,
        now: () => clock,
      });
      await mode.collect();
      if (withXid)
        appendFileSync(
          kmsgPath,
          "4,7,3500000000,-;NVRM: Xid (PCI:0000:0f:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n",
        );
      writeFileSync(join(smi.dir, "lost"), "");
      await vi.waitFor(
        () => expect(readFileSync(join(smi.dir, "starts"), "utf8").split("\n").length).toBeGreaterThan(3),
        { timeout: 5000 },
      );
      clock += 10_000;
      await mode.collect();
      const { events } = await spooled(spool);
      const lost = events.filter((e) => /GPU is lost/.test(e.message));
      expect(lost).toHaveLength(1);
      expect(lost[0].jobId).toBe("4300");
      expect(lost[0].message).toMatch(/GPU 0000:0F:00\.0: GPU is lost.* \(nvidia-smi exited with 15\)/);
      expect(validateNodeEvent(lost[0])).toMatchObject({ ok: true });
      // Its own kind whether or not the kernel logged an Xid, with the GPU's last identity.
      expect(lost[0]).toMatchObject({
        kind: "gpu_lost",
        gpuLost: {
          pciBusId: "0000:0F:00.0",
          index: 1,
          uuid: "GPU-bbbb",
          reason: "GPU is lost.  Reboot the system to recover this GPU",
          exitCode: 15,
        },
      });
      if (withXid) {
        expect(lost[0]).toMatchObject({ xid: { code: 79, pciBusId: "0000:0f:00" } });
        expect(lost[0].message).toContain("the kernel logged Xid 79 for this GPU");
        // The kernel's own Xid line is attributed to the job holding the GPU as well.
        expect(events.find((e) => e.idempotencyKey === "kmsg:unknown:7")?.jobId).toBe("4300");
      } else expect(lost[0].xid).toBeUndefined();
    });
  }

  it("takes one final reading when a job's cgroup disappears, and keeps the largest memory seen", async () => {
    const dir = tree.slurmJob("7", { memoryCurrent: 900 * MiB });
    tree.slurmJob("8");
    const mode = new NodeMode({
      cluster: "hpc1",
      node: "n01",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      now: () => clock,
    });
    await mode.collect();
    tree.remove(dir);
    clock += 10_000;
    await mode.collect();
    clock += 10_000;
    await mode.collect();
    const { samples } = await spooled(spool);
    const seven = samples.filter((s) => s.jobId === "7");
    expect(seven.map((s) => [s.time, s.final ?? false])).toEqual([
      ["2026-12-01T10:00:00.000Z", false],
      ["2026-12-01T10:00:10.000Z", true],
    ]);
    expect(seven[1].memory?.peakBytes).toBe(900 * MiB);
    expect(samples.filter((s) => s.jobId === "8")).toHaveLength(3);
  });

  it("counts a job's threads and its runnable ones beside its cgroup's CPU, and leaves them out of the final reading", async () => {
    // 8 cores' quota, 24 OpenMP threads of which 20 are runnable, and one idle helper process.
    const dir = tree.slurmJob("9", {
      cpuMaxCores: 8,
      nrPeriods: 1200,
      nrThrottled: 900,
      throttledUsec: 41_000_000,
    });
    proc.add({
      pid: 9100,
      comm: "solver",
      state: "R",
      cgroup: slurmCg("9"),
      threads: Array.from({ length: 23 }, (_, i) => ({ tid: 9101 + i, state: i < 19 ? "R" : "S" })),
    });
    proc.add({ pid: 9200, comm: "bash", state: "S", cgroup: slurmCg("9") });
    const mode = new NodeMode({
      cluster: "hpc1",
      node: "n01",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      now: () => clock,
    });
    await mode.collect();
    tree.remove(dir);
    clock += 10_000;
    await mode.collect();
    const { samples } = await spooled(spool);
    const [live, final] = samples.filter((s) => s.jobId === "9");
    expect(live.cpu).toMatchObject({
      threads: 25,
      runnableThreads: 20,
      limitCores: 8,
      throttledPeriods: 900,
      throttledSeconds: 41,
    });
    expect(validateUsageSample(live)).toMatchObject({ ok: true });
    expect(final.final).toBe(true);
    expect(final.cpu).toMatchObject({ limitCores: 8 });
    expect(final.cpu?.runnableThreads).toBeUndefined();
    expect(final.cpu?.threads).toBeUndefined();
  });

  it("records the final reading at once for the epilog, and only once", async () => {
    tree.slurmJob("77", { memoryCurrent: 100 * MiB, memoryPeak: 200 * MiB });
    const mode = new NodeMode({
      cluster: "hpc1",
      node: "n01",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      topProcesses: 0,
      now: () => clock,
    });
    await mode.collect();
    expect(await mode.finalReading("77")).toBe(true);
    expect(await mode.finalReading("77")).toBe(false);
    expect(await mode.finalReading("nope")).toBe(false);
    await mode.collect();
    const { samples } = await spooled(spool);
    expect(samples.map((s) => s.final ?? false)).toEqual([false, true]);
  });

  it("attributes processes to SLURM jobs through /proc on a node without cgroups", async () => {
    proc.add({ pid: 600, comm: "slurmstepd", cmdline: ["slurmstepd: [31.batch]"] });
    proc.add({ pid: 601, ppid: 600, comm: "bash", rssBytes: 4 * MiB, utime: 50, stime: 50 });
    proc.add({ pid: 602, ppid: 601, comm: "a.out", rssBytes: 500 * MiB, utime: 900, stime: 100 });
    proc.add({ pid: 700, comm: "worker", rssBytes: 50 * MiB, environ: { SLURM_JOB_ID: "32" } });
    const mode = new NodeMode({
      cluster: "hpc1",
      node: "vm",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "none",
      now: () => clock,
    });
    await mode.collect();
    proc.remove(602);
    clock += 10_000;
    await mode.collect();
    const { samples } = await spooled(spool);
    const first = samples.find((s) => s.jobId === "31")!;
    expect(first.memory).toEqual({ currentBytes: 504 * MiB, peakBytes: 504 * MiB });
    expect(first.cpu).toEqual({ usageSeconds: 11, threads: 2, runnableThreads: 0 });
    expect(first.pids).toBe(2);
    const second = samples.filter((s) => s.jobId === "31")[1];
    expect(second.memory).toEqual({ currentBytes: 4 * MiB, peakBytes: 504 * MiB });
    expect(samples.filter((s) => s.jobId === "32")).toHaveLength(2);
  });

  it("reports an unavailable source as an event, and each job's unread kernel log once, and keeps collecting", async () => {
    tree.slurmJob("1");
    let mode: NodeMode | undefined;
    const kernelLog = new KernelLog({
      cluster: "hpc1",
      node: "n01",
      path: join(work, "no-kmsg"),
      onUnavailable: (m) => mode?.sourceUnavailable("kmsg", m),
    });
    mode = new NodeMode({
      cluster: "hpc1",
      node: "n01",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      kernelLog,
      now: () => clock,
    });
    await mode.collect();
    await mode.collect();
    const { samples, events } = await spooled(spool);
    expect(samples).toHaveLength(2);
    expect(events).toHaveLength(2);
    const reason = `cannot read the kernel log ${join(work, "no-kmsg")}: ENOENT`;
    expect(events).toEqual([
      expect.objectContaining({ kind: "source_unavailable", source: "kmsg", message: reason }),
      expect.objectContaining({ kind: "source_unavailable", source: "kmsg", jobId: "1", message: reason }),
    ]);
    expect(events[0].jobId).toBeUndefined();
    for (const e of events) expect(validateNodeEvent(e).ok).toBe(true);
  });

  it("tells, once per job, that the kernel log is not watched (--kmsg false), and nothing when it is read", async () => {
    tree.slurmJob("1");
    tree.slurmJob("2", { nodePrefix: "n02" });
    const unwatched = new NodeMode({
      cluster: "hpc1",
      node: "n01",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      topProcesses: 0,
      now: () => clock,
    });
    await unwatched.collect();
    tree.slurmJob("3");
    clock += 10_000;
    await unwatched.collect();
    const { events } = await spooled(spool);
    expect(events.map((e) => [e.jobId, e.node, e.time.slice(11, 19)]).sort()).toEqual([
      ["1", "n01", "10:00:00"],
      ["2", "n02", "10:00:00"],
      ["3", "n01", "10:00:10"],
    ]);
    for (const e of events) {
      expect(e).toMatchObject({
        kind: "source_unavailable",
        source: "kmsg",
        message: "not watched: the collector runs with --kmsg false",
      });
      expect(validateNodeEvent(e).ok).toBe(true);
    }
    // The same jobs on a node whose kernel log is read: no word of it.
    const kmsg = join(work, "kmsg");
    writeFileSync(kmsg, "");
    const watched = new NodeMode({
      cluster: "hpc1",
      node: "n01",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      topProcesses: 0,
      kernelLog: new KernelLog({ cluster: "hpc1", node: "n01", path: kmsg }),
      now: () => clock,
    });
    await watched.collect();
    await watched.collect();
    const after = await spooled(spool);
    expect(after.samples.length).toBeGreaterThan(0);
    expect(after.events).toEqual([]);
  });

  it("keeps events and final readings while the disk is full, drops and counts routine samples, and carries on once space returns", async () => {
    const disk = new FullDisk();
    const full = await DiskSpool.open({ dir: join(work, "full-spool"), fs: disk.fs });
    cleanups.push(() => full.close());
    const seven = tree.slurmJob("7");
    tree.slurmJob("8");
    const mode = new NodeMode({
      cluster: "hpc1",
      node: "n01",
      spool: full,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      topProcesses: 0,
      now: () => clock,
    });
    await mode.collect();
    disk.spaceLeft = 0;
    tree.remove(seven);
    mode.sourceUnavailable("gpu", "nvidia-smi stopped answering");
    for (let i = 0; i < 2; i++) {
      clock += 10_000;
      await mode.collect();
    }
    // Job 8's two routine samples are gone for good; job 7's final reading and the event wait.
    expect(mode.stats()).toMatchObject({ rounds: 1, failedRounds: 2, heldRecords: 2 });
    expect(full.stats().droppedSamples).toBe(2);
    disk.spaceLeft = Number.POSITIVE_INFINITY;
    clock += 10_000;
    await mode.collect();
    expect(mode.stats()).toMatchObject({ rounds: 2, heldRecords: 0 });
    const { samples, events } = await spooled(full);
    expect(samples.map((s) => [s.jobId, s.time.slice(11, 19), s.final ?? false]).sort()).toEqual([
      ["7", "10:00:00", false],
      ["7", "10:00:10", true],
      ["8", "10:00:00", false],
      ["8", "10:00:30", false],
    ]);
    // No kernel log is watched here: each job's first round said so.
    expect(events.map((e) => [e.source, e.jobId]).sort()).toEqual([
      ["gpu", undefined],
      ["kmsg", "7"],
      ["kmsg", "8"],
    ]);
    expect(full.stats().droppedSamples).toBe(2);
  });
});
