import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import {
  describeSlurm,
  sacctParsable,
  sbatch,
  slurmClient,
  slurmCluster,
  slurmEnv,
  squeueJson,
  TERMINAL_STATES,
  waitForJob,
} from "../../../../test/slurm/index.js";

const run = promisify(execFile);

describeSlurm("the SLURM test cluster", () => {
  it("runs SLURM 22.05 with one idle node of the machine's real size, through SLURM_CONF", async () => {
    const cluster = slurmCluster();
    expect(cluster.version).toMatch(/^22\.05\./);
    const { stdout } = await run("sinfo", ["-h", "-N", "-o", "%N|%T|%c|%m|%P"], { env: slurmEnv() });
    const [name, state, cpus, memory, partition] = stdout.trim().split("|");
    expect({ name, cpus: Number(cpus), memory: Number(memory), partition }).toEqual({
      name: cluster.node.name,
      cpus: cluster.node.cpus,
      memory: cluster.node.realMemoryMb,
      partition: `${cluster.partition}*`,
    });
    expect(["idle", "mixed", "allocated"]).toContain(state);
    const conf = await readFile(cluster.confPath, "utf8");
    expect(conf).toContain(`AccountingStoragePass=${cluster.mungeSocket}`);
    expect(conf).toContain(`AuthInfo=socket=${cluster.mungeSocket}`);
    expect(conf).toContain(`SlurmctldPort=${cluster.ports.slurmctld}`);
  });

  it("submits a script from text and waits for it by polling sacct", async () => {
    const id = await sbatch('#!/bin/bash\necho "hello from $SLURM_JOB_ID"\n', ["--time=1", "--mem=32M"]);
    const outcome = await waitForJob(id, TERMINAL_STATES, 60_000);
    expect(outcome.state).toBe("COMPLETED");
    expect(outcome.job.ExitCode).toBe("0:0");
    expect(outcome.steps.map((step) => step.JobID)).toContain(`${id}.batch`);
    expect(await slurmClient().jobOutput(id)).toBe(`hello from ${id}\n`);
  });

  it("reads sacct -P as records and squeue --json as objects", async () => {
    const id = await sbatch("#!/bin/bash\nexit 3\n", ["--time=1", "--mem=32M", "--job-name=exit-three"]);
    await waitForJob(id, TERMINAL_STATES, 60_000);
    const rows = await sacctParsable(["JobID", "JobName", "State", "ExitCode"], ["-j", id, "-X"]);
    expect(rows).toEqual([{ JobID: id, JobName: "exit-three", State: "FAILED", ExitCode: "3:0" }]);
    const queue = await squeueJson();
    const job = queue.jobs.find((j) => String(j.job_id) === id);
    expect(job?.job_state).toBe("FAILED");
    expect(job?.exit_code).toBe(3 << 8);
  });
});
