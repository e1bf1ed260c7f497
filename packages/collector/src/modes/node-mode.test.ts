import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateNodeEvent, validateUsageSample } from "@jobsight/schemas";
import type { NodeEvent, UsageSample } from "@jobsight/schemas/light";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { KernelLog } from "../sources/kernel-log.js";
import { NvidiaSmi } from "../sources/nvidia-smi.js";
import { ProcReader } from "../sources/proc-reader.js";
import { DiskSpool } from "../spool/disk-spool.js";
import { CgroupTree } from "../test-support/cgroup-tree.js";
import { fakeCommand } from "../test-support/fake-command.js";
import { FullDisk } from "../test-support/full-disk.js";
import { ProcTree } from "../test-support/proc-tree.js";
import { NodeMode } from "./node-mode.js";

const MiB = 1024 * 1024;
const POD = "4a5b6c7d-1111-2222-3333-444455556666";

async function spooled(spool: DiskSpool): Promise<{ samples: UsageSample[]; events: NodeEvent[] }> {
  const samples: UsageSample[] = [];
  const events: NodeEvent[] = [];
  for (;;) {
    const batch = await spool.peek({ maxRecords: 1000 });
    if (batch.length === 0) return { samples, events };
    for (const r of batch) (r.kind === "usage" ? samples : events).push(r.value as never);
    await spool.ack(batch[batch.length - 1].seq, batch.length);
  }
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
    expect(first.cpu).toEqual({ usageSeconds: 11 });
    expect(first.pids).toBe(2);
    const second = samples.filter((s) => s.jobId === "31")[1];
    expect(second.memory).toEqual({ currentBytes: 4 * MiB, peakBytes: 504 * MiB });
    expect(samples.filter((s) => s.jobId === "32")).toHaveLength(2);
  });

  it("reports an unavailable source as an event and keeps collecting", async () => {
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
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: "source_unavailable", source: "kmsg" });
    expect(validateNodeEvent(events[0]).ok).toBe(true);
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
    expect(events).toMatchObject([{ kind: "source_unavailable", source: "gpu" }]);
    expect(full.stats().droppedSamples).toBe(2);
  });
});
