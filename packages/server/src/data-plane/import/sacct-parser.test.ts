import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { type JobRecord, validators } from "@jobsight/schemas";
import { beforeAll, describe, expect, it } from "vitest";
import { sacctJobToRecord } from "./sacct-job.js";
import { parseSacctJsonJob, readSacctJson, slurmNumber } from "./sacct-parser.js";

// Real `sacct --json -a` output of SLURM 22.05 (openapi dbv0.0.38); see /work/shared/slurm/README.md.
// A copy of /work/shared/slurm/sacct-all-states.json, kept in the repository (a clone has no shared/).
const FILE = new URL("../../../test/fixtures/sacct-all-states.json", import.meta.url).pathname;
const MB = 2 ** 20;

describe("sacct --json (SLURM 22.05, real output)", () => {
  let records: Map<string, JobRecord>;

  beforeAll(async () => {
    records = new Map();
    for await (const item of readSacctJson(createReadStream(FILE, { highWaterMark: 1024 }))) {
      if ("error" in item) throw new Error(`job ${item.index}: ${item.error}`);
      const record = sacctJobToRecord(item.job);
      records.set(
        record.spec.jobName === undefined ? record.jobId : `${record.jobId}:${record.spec.jobName}`,
        record,
      );
    }
  });

  const job = (id: string) => [...records.values()].find((r) => r.jobId === id)!;

  it("reads every job of the export, each a valid JobRecord", () => {
    expect(records.size).toBe(12);
    for (const r of records.values())
      expect(validators.JobRecord.validate(r)).toEqual({ ok: true, value: r });
  });

  it("maps the states and exit codes of the README table", () => {
    const outcome = (id: string) => job(id).outcome;
    // exits 0 → COMPLETED 0:0
    expect(outcome("4")).toEqual({ state: "COMPLETED", exitCode: 0 });
    // exits 1 / 3 → FAILED; 22.05's --json says SUCCESS/0, so the exit code is left unknown.
    expect(outcome("5")).toEqual({ state: "FAILED" });
    expect(outcome("9")).toEqual({ state: "FAILED" });
    // sleeps past --time=1 → TIMEOUT 0:0
    expect(outcome("6")).toEqual({ state: "TIMEOUT", exitCode: 0 });
    // over --mem in the batch script: FAILED with signal 9 and MaxRSS above the request → OUT_OF_MEMORY
    expect(outcome("7")).toMatchObject({ state: "OUT_OF_MEMORY", signal: 9 });
    // the same inside srun: the job COMPLETED, step .0 is the one killed for memory
    expect(outcome("8")).toEqual({ state: "COMPLETED", exitCode: 0 });
    expect(job("8").steps?.find((s) => s.stepId === "0")).toMatchObject({
      state: "OUT_OF_MEMORY",
      signal: 9,
    });
    // scancel → CANCELLED 0:0, pending and running
    expect(outcome("10")).toEqual({ state: "CANCELLED", exitCode: 0 });
    expect(outcome("12")).toEqual({ state: "CANCELLED", exitCode: 0 });
  });

  it("converts units: limit minutes to seconds, TRES memory MB to bytes, MaxRSS bytes", () => {
    const oom = job("7");
    expect(oom.spec.requested).toEqual({ memoryBytes: 100 * MB, cores: 1, nodes: 1, walltimeSeconds: 180 });
    expect(oom.steps?.find((s) => s.stepId === "batch")?.maxRssBytes).toBe(115_204_096);
    expect(oom.peaks?.memoryBytes).toBe(115_204_096);
    expect(job("1").spec.requested.walltimeSeconds).toBeUndefined();
    expect(job("6").peaks?.runTimeSeconds).toBe(70);
  });

  it("keeps a never-started job without a start and without usage", () => {
    const pending = job("10");
    expect(pending.phase).toBe("ended");
    expect(pending.startedAt).toBeUndefined();
    expect(pending.nodes).toBeUndefined();
    expect(pending.peaks).toBeUndefined();
  });

  it("takes the cluster, user and times from the export", () => {
    const first = job("1");
    expect(first).toMatchObject({
      cluster: "testcluster",
      source: "sacct-import",
      spec: { user: "root", account: "root", partition: "debug", jobName: "first" },
      submittedAt: "2026-12-02T15:37:07Z",
      nodes: ["vm"],
    });
  });
});

describe("sacct --json of newer SLURM versions", () => {
  it("reads {set, infinite, number} values, state lists and job-prefixed step ids", () => {
    const job = parseSacctJsonJob({
      job_id: 5001,
      user: "bob",
      cluster: "hpc1",
      array: { job_id: 5000, task_id: { set: true, infinite: false, number: 3 } },
      state: { current: ["OUT_OF_MEMORY"], reason: "None" },
      exit_code: {
        status: ["SIGNALED"],
        return_code: { set: false, number: 0 },
        signal: { id: { set: true, number: 9 }, name: "KILL" },
      },
      time: {
        submission: 1_800_000_000,
        start: 1_800_000_010,
        end: 1_800_000_070,
        elapsed: 60,
        limit: { set: true, infinite: false, number: 30 },
      },
      required: {
        CPUs: 4,
        memory_per_cpu: { set: true, number: 1000 },
        memory_per_node: { set: false, number: 0 },
      },
      tres: {
        requested: [{ type: "gres", name: "gpu:a100", count: 2 }],
        allocated: [{ type: "mem", count: 4000 }],
      },
      steps: [
        {
          step: { id: "5001.batch", name: "batch" },
          state: "OUT_OF_MEMORY",
          exit_code: { status: ["SIGNALED"], signal: { id: { set: true, number: 9 } } },
          tres: { requested: { max: [{ type: "mem", count: 4_300_000_000 }] } },
          time: { elapsed: 60 },
        },
      ],
    });
    const record = sacctJobToRecord(job);
    expect(record).toMatchObject({
      cluster: "hpc1",
      jobId: "5000_3",
      spec: {
        array: { arrayJobId: "5000", taskId: 3 },
        requested: { cores: 4, memoryBytes: 4000 * MB, gpus: 2, walltimeSeconds: 1800 },
      },
      outcome: { state: "OUT_OF_MEMORY", signal: 9 },
      steps: [{ stepId: "batch", state: "OUT_OF_MEMORY", maxRssBytes: 4_300_000_000 }],
    });
    expect(validators.JobRecord.check(record)).toBe(true);
  });

  it("reads unset and infinite numbers as unknown", () => {
    expect(slurmNumber({ set: true, infinite: true, number: 0 })).toBeUndefined();
    expect(slurmNumber({ set: false, number: 5 })).toBeUndefined();
    expect(slurmNumber(7)).toBe(7);
  });

  it("reports jobs that cannot be read with their position, and goes on", async () => {
    const text = JSON.stringify({ jobs: [{ job_id: 1 }, JSON.parse(await readFile(FILE, "utf8")).jobs[0]] });
    const { Readable } = await import("node:stream");
    const items = [];
    for await (const item of readSacctJson(Readable.from([text]))) items.push(item);
    expect(items[0]).toEqual({ index: 1, error: "user is missing" });
    expect("job" in items[1]).toBe(true);
  });
});
