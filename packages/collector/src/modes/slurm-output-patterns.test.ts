import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OutputPatternMemory, outputPatternsOf } from "./slurm-output-patterns.js";
import { stderrPathOf } from "./slurm-stderr.js";

// Real `squeue --json` of SLURM 22.05 for a running job submitted with `--output=%x-%j.out` from
// /srv/slurm-test/jobs (paths anonymised): sbatch made the pattern absolute, left it unexpanded,
// and printed `""` for the unset `--error`.
const SQUEUE = join(import.meta.dirname, "fixtures", "squeue-output-pattern.json");
const running = (JSON.parse(readFileSync(SQUEUE, "utf8")) as { jobs: Record<string, unknown>[] }).jobs[0];
// Real `sacct --json` of SLURM 22.05: it records the working directory, but no output path.
const SACCT = join(import.meta.dirname, "fixtures", "sacct-all-states.json");
const failed = (JSON.parse(readFileSync(SACCT, "utf8")) as { jobs: Record<string, unknown>[] }).jobs.find(
  (j) => j.job_id === 5,
)!;

describe("output patterns from squeue --json", () => {
  it("reads 22.05's standard_output, standard_error and current_working_directory", () => {
    expect(running).toMatchObject({ job_state: "RUNNING", name: "pattern-probe" });
    expect(outputPatternsOf(running)).toEqual({
      stdout: "/srv/slurm-test/jobs/%x-%j.out",
      workDir: "/srv/slurm-test/jobs",
    });
    expect(outputPatternsOf({ ...running, standard_error: "err/%j.err" })?.stderr).toBe("err/%j.err");
    expect(outputPatternsOf({ ...running, standard_output: "", standard_error: "" })).toBeUndefined();
  });

  it("gives sacct's job the stderr squeue named when sacct records none (22.05)", () => {
    const known = outputPatternsOf(running);
    expect(Object.keys(failed).filter((k) => /^std(out|err)/.test(k))).toEqual([]);
    expect(stderrPathOf(failed, "ana")).toBe("/srv/slurm-test/jobs/slurm-5.out");
    expect(stderrPathOf(failed, "ana", known)).toBe("/srv/slurm-test/jobs/fail-5.out");
    // A relative pattern is the job's working directory's; an --error beats the output file.
    expect(stderrPathOf(failed, "ana", { stdout: "%x-%j.out" })).toBe("/srv/slurm-test/jobs/fail-5.out");
    expect(
      stderrPathOf({ ...failed, working_directory: "" }, "ana", { stdout: "%j.out", workDir: "/w" }),
    ).toBe("/w/5.out");
    expect(stderrPathOf(failed, "ana", { stdout: "/o/%j.out", stderr: "/e/%u-%j.err" })).toBe("/e/ana-5.err");
    // Where sacct says (23.02+), it is believed over what squeue said earlier.
    expect(stderrPathOf({ ...failed, stderr: "/x/%j.err" }, "ana", known)).toBe("/x/5.err");
  });
});

describe("OutputPatternMemory", () => {
  const squeueJob = (id: number, extra: Record<string, unknown> = {}) => ({
    ...running,
    job_id: id,
    ...extra,
  });

  it("keeps a job's patterns until it is forgotten, and an array's for its tasks", () => {
    const memory = new OutputPatternMemory();
    memory.remember(squeueJob(5));
    memory.remember(squeueJob(31, { array_job_id: 30, array_task_id: 1, standard_output: "/a/%A_%a.out" }));
    expect(memory.ofSacctJob(failed)?.stdout).toBe("/srv/slurm-test/jobs/%x-%j.out");
    // A task squeue never listed on its own (it ran between polls) has its array's patterns.
    expect(memory.ofSacctJob({ job_id: 32, array: { job_id: 30, task_id: 2 } })?.stdout).toBe("/a/%A_%a.out");
    memory.forget("5");
    expect(memory.ofSacctJob(failed)).toBeUndefined();
    expect(memory.size).toBe(2);
  });

  it("holds at most its limit, forgetting the longest-known first", () => {
    const memory = new OutputPatternMemory(3);
    for (const id of [1, 2, 3, 4]) memory.remember(squeueJob(id));
    expect(memory.size).toBe(3);
    expect(memory.ofSacctJob({ job_id: 1 })).toBeUndefined();
    expect(memory.ofSacctJob({ job_id: 4 })).toBeDefined();
  });
});
