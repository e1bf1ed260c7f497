// The raw facts of shared/slurm/README.md, checked on a real SLURM 22.05 cluster without cgroups.
// These pin what the collector and the sacct import must cope with, traps included.
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import {
  describeSlurm,
  type JobOutcome,
  type ReferenceJobName,
  type ReferenceJobs,
  type SacctJob,
  sacctJson,
  sbatch,
  sizeToBytes,
  slurmClient,
  squeueJson,
  submitReferenceJobs,
  tresCount,
  waitForJob,
  waitForReferenceJobs,
} from "../../../../test/slurm/index.js";

const MB = 1024 * 1024;

/** The finished job, its sacct -P rows, its sacct --json record and its squeue --json record. */
async function finished(name: ReferenceJobName) {
  const jobs: ReferenceJobs = await submitReferenceJobs();
  const outcome = (await waitForReferenceJobs([name]))[name] as JobOutcome;
  const id = jobs[name].id;
  const [sacct, squeue] = await Promise.all([sacctJson(["-j", id]), squeueJson()]);
  const json = sacct.jobs.find((job) => String(job.job_id) === id) as SacctJob;
  const queued = squeue.jobs.find((job) => String(job.job_id) === id);
  const batch = outcome.steps.find((step) => step.JobID === `${id}.batch`);
  const jsonBatch = json.steps.find((step) => step.step.name === "batch");
  const output = await readFile(jobs[name].outputPath, "utf8");
  return { job: jobs[name], outcome, batch, json, jsonBatch, queued, output };
}

describeSlurm("real SLURM 22.05 outputs (single node, no cgroups)", () => {
  it("squeue --json of a running job: limit in minutes, end_time = start + limit, memory in MB", async () => {
    const id = await sbatch("#!/bin/bash\nsleep 120\n", [
      "--time=2",
      "--mem=48M",
      "--job-name=running-probe",
    ]);
    try {
      await waitForJob(id, ["RUNNING"], 30_000);
      const job = (await squeueJson()).jobs.find((j) => String(j.job_id) === id);
      expect(job).toMatchObject({
        job_state: "RUNNING",
        name: "running-probe",
        time_limit: 2,
        memory_per_node: 48,
        memory_per_cpu: null,
        exit_code: 0,
        partition: slurmClient().cluster.partition,
      });
      expect(job!.end_time - job!.start_time).toBe(120);
      expect(job!.tres_req_str).toContain("mem=48M");
    } finally {
      await slurmClient().scancel(id);
    }
  });

  it("--output=%x-%j.out: squeue --json and scontrol know the pattern and the work dir, sacct --json does not", async () => {
    const jobsDir = slurmClient().cluster.jobsDir;
    const id = await sbatch("#!/bin/bash\nsleep 120\n", [
      "--time=2",
      "--mem=40M",
      "--job-name=pattern-probe",
      "--output=%x-%j.out",
    ]);
    try {
      await waitForJob(id, ["RUNNING"], 30_000);
      const job = (await squeueJson()).jobs.find((j) => String(j.job_id) === id) as Record<string, unknown>;
      // sbatch made it absolute, but left it unexpanded: the collector expands it.
      expect(job).toMatchObject({
        standard_output: `${jobsDir}/%x-%j.out`,
        standard_error: "",
        current_working_directory: jobsDir,
      });
      const shown = await slurmClient().run("scontrol", ["show", "job", "-o", id]);
      expect(shown).toContain(`StdOut=${jobsDir}/pattern-probe-${id}.out`);
      const recorded = (await sacctJson(["-j", id])).jobs.find((j) => String(j.job_id) === id);
      expect(recorded).toMatchObject({ working_directory: jobsDir });
      expect(Object.keys(recorded!).filter((k) => /^std(out|err)/.test(k))).toEqual([]);
    } finally {
      await slurmClient().scancel(id);
    }
  });

  it("exit 1: FAILED 1:0 in sacct -P, but SUCCESS/0 in sacct --json (the 22.05 trap); squeue has 256", async () => {
    const { outcome, batch, json, jsonBatch, queued, output } = await finished("exitsOne");
    expect([outcome.job.State, outcome.job.ExitCode]).toEqual(["FAILED", "1:0"]);
    expect([batch?.State, batch?.ExitCode]).toEqual(["FAILED", "1:0"]);
    expect(json.state.current).toBe("FAILED");
    expect(json.exit_code).toEqual({ status: "SUCCESS", return_code: 0 });
    expect(jsonBatch?.exit_code).toEqual({ status: "SUCCESS", return_code: 0 });
    expect(queued).toMatchObject({ job_state: "FAILED", exit_code: 256, state_reason: "NonZeroExitCode" });
    expect(output).toBe("about to fail\n");
  });

  it("exit 0: COMPLETED 0:0, MaxRSS of the batch step in bytes (JSON) and KiB (sacct -P)", async () => {
    const { job, outcome, batch, json, jsonBatch, queued } = await finished("completes");
    expect([outcome.job.State, outcome.job.ExitCode]).toEqual(["COMPLETED", "0:0"]);
    expect(json.exit_code).toEqual({ status: "SUCCESS", return_code: 0 });
    expect(queued).toMatchObject({
      job_state: "COMPLETED",
      exit_code: 0,
      time_limit: 2,
      memory_per_node: 200,
    });
    // Requests in MB and minutes.
    expect(json.time.limit).toBe(job.request.timeMinutes);
    expect(json.required.memory).toBe(job.request.memMb);
    expect(tresCount(json.tres.requested, "mem")).toBe(job.request.memMb);
    expect(tresCount(json.tres.allocated, "mem")).toBe(job.request.memMb);
    expect(outcome.job.ReqMem).toBe(`${job.request.memMb}M`);
    // Elapsed in seconds, the same number in both outputs; the script holds its memory ~4 s.
    expect(json.time.elapsed).toBe(Number(outcome.job.ElapsedRaw));
    expect(json.time.elapsed).toBeGreaterThanOrEqual(4);
    expect(json.time.end - json.time.start).toBe(json.time.elapsed);
    // Peak RSS: 60 MB filled plus the interpreter, below the request; bytes in JSON.
    const maxRss = tresCount(jsonBatch!.tres.requested.max, "mem")!;
    expect(maxRss).toBeGreaterThan(60 * MB);
    expect(maxRss).toBeLessThan(job.request.memMb * MB);
    expect(Math.abs(sizeToBytes(batch!.MaxRSS, "K")! - maxRss)).toBeLessThan(1024);
  });

  it("over --mem: FAILED 0:9, batch step killed by signal 9 with MaxRSS above the request, never OUT_OF_MEMORY", async () => {
    const { job, outcome, batch, json, jsonBatch, queued, output } = await finished("overMemory");
    expect([outcome.job.State, outcome.job.ExitCode]).toEqual(["FAILED", "0:9"]);
    expect(batch?.State).toMatch(/^CANCELLED/);
    expect(batch?.ExitCode).toBe("0:9");
    expect(json.state.current).toBe("FAILED");
    expect(json.exit_code).toMatchObject({ status: "SIGNALED", signal: { signal_id: 9, name: "Killed" } });
    expect(jsonBatch?.state).toBe("CANCELLED");
    expect(jsonBatch?.exit_code).toMatchObject({ status: "SIGNALED", signal: { signal_id: 9 } });
    const maxRss = tresCount(jsonBatch!.tres.requested.max, "mem")!;
    expect(maxRss).toBeGreaterThan(job.request.memMb * MB);
    expect(Math.abs(sizeToBytes(batch!.MaxRSS, "K")! - maxRss)).toBeLessThan(1024);
    expect(queued).toMatchObject({ job_state: "FAILED", exit_code: 9 });
    // The only words that say "memory": slurmstepd's notice in the job's own output.
    expect(output).toMatch(/StepId=\d+\.batch exceeded memory limit \(\d+ > 104857600\), being killed/);
    // slurmstepd's closing "Exceeded job memory limit" line is written only when the step is
    // reaped after the notice, which a fast cancel sometimes beats (seen in CI): not asserted.
    const everything = JSON.stringify(await sacctJson());
    expect(everything).not.toContain("OUT_OF_MEMORY");
  });

  it("scancel while running: CANCELLED by 0 with 0:0, the batch step ended by SIGTERM (0:15)", async () => {
    const { outcome, batch, json, jsonBatch, queued, output } = await finished("cancelled");
    expect([outcome.job.State, outcome.job.ExitCode]).toEqual(["CANCELLED by 0", "0:0"]);
    // The batch step is recorded as killed by SIGTERM (CANCELLED 0:15) on most runs; when the
    // step's shell reaps the signalled child first, slurmstepd records the 15 as an exit code
    // (FAILED 15:0). Both have been seen on this cluster; the job's own record is the same.
    expect([
      ["CANCELLED", "0:15"],
      ["FAILED", "15:0"],
    ]).toContainEqual([batch?.State, batch?.ExitCode]);
    expect(json.state.current).toBe("CANCELLED");
    if (batch?.State === "CANCELLED") {
      expect(jsonBatch?.exit_code).toMatchObject({ status: "SIGNALED", signal: { signal_id: 15 } });
    } else {
      expect(jsonBatch?.state).toBe("FAILED");
    }
    expect(queued).toMatchObject({ job_state: "CANCELLED" });
    // squeue keeps the raw wait status: signal 15, exit code 15 (15 << 8), or, when the batch
    // shell was the one signalled while it waited for its child, the shell's own 128 + 15 (seen
    // once on a loaded machine, 2026-12-05).
    expect([15, 15 << 8, (128 + 15) << 8]).toContain(queued?.exit_code);
    expect(output).toMatch(/started\n.*\*\*\* JOB \d+ ON \S+ CANCELLED AT \S+ \*\*\*/s);
    // It ran before it was cancelled: a start time and some elapsed time.
    expect(json.time.start).toBeGreaterThan(0);
    expect(json.time.end).toBeGreaterThanOrEqual(json.time.start);
  });

  it("healthy long job: COMPLETED 0:0 after ~60 s, peak memory well inside its request", async () => {
    const { job, outcome, json, jsonBatch, output } = await finished("healthyLong");
    expect([outcome.job.State, outcome.job.ExitCode]).toEqual(["COMPLETED", "0:0"]);
    expect(json.time.elapsed).toBeGreaterThanOrEqual(60);
    const maxRss = tresCount(jsonBatch!.tres.requested.max, "mem")!;
    expect(maxRss).toBeGreaterThan(100 * MB);
    expect(maxRss).toBeLessThan(job.request.memMb * MB);
    expect(output).toBe("holding 100 MB\ndone\n");
  });

  it("past --time=1: TIMEOUT 0:0 some 60-100 s after start, limit 1 minute, batch step SIGTERM", async () => {
    const { outcome, batch, json, jsonBatch, queued, output } = await finished("timeout");
    expect([outcome.job.State, outcome.job.ExitCode]).toEqual(["TIMEOUT", "0:0"]);
    // The step's own record races the job's: it ends as CANCELLED by SIGTERM, as TIMEOUT, or (seen
    // once in CI) as FAILED with the signal's number as its exit code.
    expect([
      ["CANCELLED", "0:15"],
      ["TIMEOUT", "0:0"],
      ["FAILED", "15:0"],
    ]).toContainEqual([batch?.State, batch?.ExitCode]);
    expect(jsonBatch?.state).toBe(batch?.State);
    if (batch?.State === "CANCELLED") {
      expect(jsonBatch?.exit_code).toMatchObject({ status: "SIGNALED", signal: { signal_id: 15 } });
    } else if (batch?.State === "FAILED") expect(jsonBatch?.exit_code).toMatchObject({ return_code: 15 });
    else expect(jsonBatch?.exit_code).toMatchObject({ return_code: 0 });
    expect(json.state.current).toBe("TIMEOUT");
    expect(json.exit_code).toEqual({ status: "SUCCESS", return_code: 0 });
    expect(json.time.limit).toBe(1);
    expect(outcome.job.TimelimitRaw).toBe("1");
    // The limit plus up to one 30 s pass of slurmctld's time-limit check.
    expect(json.time.elapsed).toBeGreaterThanOrEqual(60);
    expect(json.time.elapsed).toBeLessThanOrEqual(100);
    expect(queued).toMatchObject({
      job_state: "TIMEOUT",
      state_reason: "TimeLimit",
      exit_code: 15,
      time_limit: 1,
    });
    expect(output).toMatch(/CANCELLED AT \S+ DUE TO TIME LIMIT/);
  });
});
