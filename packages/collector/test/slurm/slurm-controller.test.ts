// The collector's controller mode on the real cluster's live `squeue --json` / `sacct --json`
// (and `sacct -P` for 22.05's wrong exit codes), checked against what `sacct -P` says.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JobRecord } from "@jobsight/schemas";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  describeSlurm,
  REFERENCE_JOBS,
  type ReferenceJobs,
  type SacctTruth,
  sacctTruth,
  sbatch,
  slurmClient,
  submitReferenceJobs,
  waitForJob,
  waitForReferenceJobs,
} from "../../../../test/slurm/index.js";
import { poll } from "../../../../test/slurm/poll.js";
import { DiskSpool, SlurmController } from "../../src/index.js";

const MB = 1024 * 1024;
const CLUSTER = "real-slurm";

/** One poll of a fresh controller; returns the job records it spooled, by job id. */
async function pollOnce(dir: string): Promise<{ byJob: Map<string, JobRecord[]>; failedPolls: number }> {
  const spool = await DiskSpool.open({ dir, fsync: false });
  try {
    const client = slurmClient();
    const controller = new SlurmController({
      cluster: CLUSTER,
      spool,
      run: (command, args) => client.run(command, args),
    });
    await controller.poll();
    const byJob = new Map<string, JobRecord[]>();
    for (const { kind, value } of await spool.peek({ maxRecords: 100_000 })) {
      if (kind !== "job") continue;
      const record = value as JobRecord;
      byJob.set(record.jobId, [...(byJob.get(record.jobId) ?? []), record]);
    }
    return { byJob, failedPolls: controller.stats().failedPolls };
  } finally {
    await spool.close();
  }
}

/** Exit code or signal as sacct -P gives it. */
function expectExit(record: JobRecord, truth: SacctTruth): void {
  if (truth.signal !== undefined) expect(record.outcome?.signal, `job ${truth.id} signal`).toBe(truth.signal);
  else expect(record.outcome?.exitCode, `job ${truth.id} exit code`).toBe(truth.exitCode);
}

describeSlurm("collector controller mode on a real SLURM 22.05 cluster", () => {
  let dir: string;
  let jobs: ReferenceJobs;
  let ended: Map<string, JobRecord>;
  let truths: Map<string, SacctTruth>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "jobsight-controller-"));
    jobs = await submitReferenceJobs();
    await waitForReferenceJobs();
    const ids = REFERENCE_JOBS.map((spec) => jobs[spec.name].id);
    truths = await sacctTruth(slurmClient(), ids);
    const { byJob, failedPolls } = await pollOnce(join(dir, "ended"));
    expect(failedPolls).toBe(0);
    ended = new Map();
    for (const id of ids) {
      const record = byJob.get(id)?.find((r) => r.phase === "ended");
      if (record) ended.set(id, record);
    }
  }, 240_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("spools one ended record per reference job, with SLURM's state and request", () => {
    for (const spec of REFERENCE_JOBS) {
      const id = jobs[spec.name].id;
      const record = ended.get(id);
      const truth = truths.get(id)!;
      expect(record, `${spec.name} (${id})`).toBeDefined();
      expect(record!.source).toBe("slurm-controller");
      expect(record!.cluster).toBe(CLUSTER);
      expect(record!.idempotencyKey).toBe(`${CLUSTER}:${id}:ended`);
      expect(record!.spec.jobName).toBe(spec.jobName);
      expect(record!.spec.requested.memoryBytes).toBe(spec.request.memMb * MB);
      expect(record!.spec.requested.memoryBytes).toBe(truth.requestedMemoryBytes);
      expect(record!.spec.requested.cores).toBe(spec.request.cpus);
      expect(record!.spec.requested.walltimeSeconds).toBe(truth.walltimeSeconds);
      expect(record!.spec.requested.walltimeSeconds).toBe(spec.request.timeMinutes * 60);
      expect(record!.nodes).toEqual([slurmClient().cluster.node.name]);
    }
  });

  it("gives each job the state, exit code or signal that sacct -P gives (not the JSON's SUCCESS for exit 1)", () => {
    for (const spec of REFERENCE_JOBS) {
      const id = jobs[spec.name].id;
      const truth = truths.get(id)!;
      const record = ended.get(id)!;
      // sacct says FAILED 0:9 for the over-memory kill; the collector reads it as OUT_OF_MEMORY.
      const state = spec.name === "overMemory" ? "OUT_OF_MEMORY" : truth.state;
      expect(record.outcome?.state, `${spec.name} state`).toBe(state);
      expectExit(record, truth);
    }
    expect(ended.get(jobs.exitsOne.id)!.outcome).toMatchObject({ state: "FAILED", exitCode: 1 });
    expect(ended.get(jobs.overMemory.id)!.outcome).toMatchObject({ state: "OUT_OF_MEMORY", signal: 9 });
    expect(ended.get(jobs.timeout.id)!.outcome).toMatchObject({ state: "TIMEOUT", exitCode: 0 });
    expect(ended.get(jobs.cancelled.id)!.outcome).toMatchObject({ state: "CANCELLED", exitCode: 0 });
  });

  it("reports elapsed time in seconds and peak memory (MaxRSS) in bytes, as sacct -P does", () => {
    for (const spec of REFERENCE_JOBS) {
      const id = jobs[spec.name].id;
      const truth = truths.get(id)!;
      const record = ended.get(id)!;
      expect(record.peaks?.runTimeSeconds, `${spec.name} elapsed`).toBe(truth.elapsedSeconds);
      if (truth.maxRssBytes === undefined) expect(record.peaks?.memoryBytes).toBeUndefined();
      else
        expect(Math.abs(record.peaks!.memoryBytes! - truth.maxRssBytes), `${spec.name} peak`).toBeLessThan(
          1024,
        );
      const batch = record.steps?.find((step) => step.stepId === "batch");
      expect(batch, `${spec.name} batch step`).toBeDefined();
      // A batch step killed by signal 9 over its memory limit is OUT_OF_MEMORY, as the job is.
      if (spec.name === "overMemory" && batch!.signal === 9) expect(batch!.state).toBe("OUT_OF_MEMORY");
      else expect(batch!.state).toBe(truth.steps.batch.state);
    }
    const overMemory = ended.get(jobs.overMemory.id)!;
    expect(overMemory.peaks!.memoryBytes!).toBeGreaterThan(overMemory.spec.requested.memoryBytes!);
    const timeout = ended.get(jobs.timeout.id)!;
    expect(timeout.peaks!.runTimeSeconds!).toBeGreaterThanOrEqual(timeout.spec.requested.walltimeSeconds!);
  });

  it("reports a running job from squeue --json as started, with its request and start time", async () => {
    const id = await sbatch("#!/bin/bash\nsleep 120\n", [
      "--time=3",
      "--mem=40M",
      "--job-name=controller-running",
    ]);
    try {
      await waitForJob(id, ["RUNNING"], 30_000);
      const { byJob } = await pollOnce(join(dir, "running"));
      const records = byJob.get(id) ?? [];
      expect(records.map((r) => r.phase)).toEqual(["started"]);
      expect(records[0].spec.requested).toMatchObject({
        memoryBytes: 40 * MB,
        cores: 1,
        walltimeSeconds: 180,
      });
      expect(Date.parse(records[0].startedAt!)).toBeLessThanOrEqual(Date.now());
      expect(records[0].outcome).toBeUndefined();
    } finally {
      await slurmClient().scancel(id);
    }
  });

  it("cites the traceback of a job run with --output=%x-%j.out, its path taken from squeue while it ran", async () => {
    const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    const script = `#!/bin/bash\nsleep 8\nexec ${python} -c 'print("loading", flush=True); {}["batch_size"]'\n`;
    const id = await sbatch(script, [
      "--time=2",
      "--mem=64M",
      "--job-name=crash-pattern",
      "--output=%x-%j.out",
    ]);
    const spool = await DiskSpool.open({ dir: join(dir, "pattern"), fsync: false });
    try {
      const client = slurmClient();
      const controller = new SlurmController({
        cluster: CLUSTER,
        spool,
        run: (command, args) => client.run(command, args),
      });
      // Polled as the controller polls: while the job runs (squeue), then until its end is sent.
      const phase = (name: JobRecord["phase"], timeoutMs: number) =>
        poll(
          async () => {
            await controller.poll();
            const records = (await spool.peek({ maxRecords: 100_000 })).map((b) => b.value as JobRecord);
            return records.find((r) => r.jobId === id && r.phase === name);
          },
          { what: `the ${name} record of job ${id}`, timeoutMs, intervalMs: 500 },
        );
      await phase("started", 60_000);
      const ended = await phase("ended", 120_000);
      expect(ended.outcome).toMatchObject({ state: "FAILED", exitCode: 1 });
      expect(ended.outcome?.stderrTail?.path).toBe(join(client.cluster.jobsDir, `crash-pattern-${id}.out`));
      expect(ended.outcome?.stderrTail?.text).toContain("Traceback (most recent call last):");
      expect(ended.outcome?.stderrTail?.text).toContain("KeyError: 'batch_size'");
    } finally {
      await spool.close();
    }
  });
});
