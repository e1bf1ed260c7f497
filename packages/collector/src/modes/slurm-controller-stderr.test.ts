import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateJobRecord } from "@jobsight/schemas";
import type { JobRecord } from "@jobsight/schemas/light";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DiskSpool } from "../spool/disk-spool.js";
import { fakeCommand } from "../test-support/fake-command.js";
import { SlurmController } from "./slurm-controller.js";
import { recordFromSacct } from "./slurm-records.js";
import { expandOutputPattern, readStderrTail, stderrPathOf } from "./slurm-stderr.js";

// Real `sacct --json` of SLURM 22.05 (see /work/shared/slurm/README.md); job 5 exited 1 (FAILED).
const SACCT = join(import.meta.dirname, "fixtures", "sacct-all-states.json");
const real = JSON.parse(readFileSync(SACCT, "utf8")) as { jobs: Record<string, unknown>[] };
const job = (id: number) => structuredClone(real.jobs.find((j) => j.job_id === id)!);
const me = process.getuid!();

// A PyTorch job's stderr as Python prints it.
const TRACEBACK = `Epoch 3: 100%|██████████| 500/500
Traceback (most recent call last):
  File "/home/ana/train.py", line 88, in <module>
    loss.backward()
  File "/usr/lib/python3/dist-packages/torch/_tensor.py", line 522, in backward
    torch.autograd.backward(
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free.
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "jobsight-stderr-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("stderr paths of sacct jobs", () => {
  it("expands sbatch's placeholders the way sbatch does", () => {
    const j = { jobId: "4242", user: "ana", jobName: "fit", arrayJobId: "4240", taskId: 2 };
    expect(expandOutputPattern("%x-%A_%a.err", j)).toBe("fit-4240_2.err");
    expect(expandOutputPattern("/scratch/%u/%j.%4a.log", j)).toBe("/scratch/ana/4242.0002.log");
    expect(expandOutputPattern("100%%-%j", j)).toBe("100%-4242");
    expect(expandOutputPattern("out-%j\\.txt", j)).toBe("out-%j.txt");
    // Per-task outputs (srun -o %t) name no single file.
    expect(expandOutputPattern("task-%t.err", j)).toBeUndefined();
  });

  it("takes stderr_expanded (24.05), else stderr (23.02), else stdout, else slurm-%j.out in the work dir", () => {
    const j = job(5); // 22.05 prints no stdout/stderr fields
    expect(stderrPathOf(j, "ana")).toBe("/srv/slurm-test/jobs/slurm-5.out");
    expect(stderrPathOf({ ...j, stdout: "logs/%x.out" }, "ana")).toBe("/srv/slurm-test/jobs/logs/fail.out");
    expect(stderrPathOf({ ...j, stdout: "a.out", stderr: "/err/%u-%j.err" }, "ana")).toBe("/err/ana-5.err");
    expect(stderrPathOf({ ...j, stderr: "%j.err", stderr_expanded: "/x/5.err" }, "ana")).toBe("/x/5.err");
    expect(stderrPathOf({ ...j, stderr: "/dev/null" }, "ana")).toBeUndefined();
    const task = {
      ...j,
      job_id: 31,
      array: { job_id: 30, task_id: { set: true, infinite: false, number: 1 } },
    };
    expect(stderrPathOf(task, "ana")).toBe("/srv/slurm-test/jobs/slurm-30_1.out");
  });

  it("reads DerivedExitCode as 23.02+ prints it", () => {
    const j = job(5);
    j.derived_exit_code = {
      status: ["SIGNALED"],
      return_code: { set: false, infinite: false, number: 0 },
      signal: { id: { set: true, infinite: false, number: 11 }, name: "SEGV" },
    };
    expect(recordFromSacct(j, "hpc1")?.record.outcome?.derivedSignal).toBe(11);
  });
});

describe("reading a stderr tail", () => {
  it("keeps only the last whole lines of the last 8 KiB, never more", async () => {
    const path = join(dir, "big.err");
    const noise = Array.from({ length: 2000 }, (_, i) => `step ${i} loss=0.${i}`).join("\n");
    writeFileSync(path, `${noise}\n${TRACEBACK}`);
    const tail = await readStderrTail(path, { ownerUid: me, maxBytes: 1 << 20 });
    expect(tail?.truncated).toBe(true);
    expect(Buffer.byteLength(tail!.text)).toBeLessThanOrEqual(8192);
    expect(tail!.text.endsWith(TRACEBACK)).toBe(true);
    expect(tail!.text.startsWith("step ")).toBe(true);
  });

  it("refuses files the job's user does not own, symlinks, and FIFOs", async () => {
    const path = join(dir, "job.err");
    writeFileSync(path, TRACEBACK);
    expect(await readStderrTail(path, { ownerUid: me + 1 })).toBeUndefined();
    symlinkSync(path, join(dir, "link.err"));
    expect(await readStderrTail(join(dir, "link.err"), { ownerUid: me })).toBeUndefined();
    mkdirSync(join(dir, "d"));
    expect(await readStderrTail(join(dir, "d"), { ownerUid: me })).toBeUndefined();
    expect(await readStderrTail(path, { ownerUid: me })).toEqual({ path, text: TRACEBACK, truncated: false });
  });
});

describe("SlurmController with a shared file system", () => {
  it("sends the stderr tail of a failed job in its ended record, and none for a completed one", async () => {
    const failed = { ...job(5), working_directory: dir, stderr: "%x-%j.err" };
    const ok = { ...job(1), working_directory: dir };
    writeFileSync(join(dir, "fail-5.err"), TRACEBACK);
    writeFileSync(join(dir, "slurm-1.out"), "all good\n");
    writeFileSync(join(dir, "sacct.json"), JSON.stringify({ ...real, jobs: [failed, ok] }));
    const sacct = fakeCommand(
      "sacct",
      `case "$*" in *--json*) cat "${join(dir, "sacct.json")}" ;; *-P*) printf '5|FAILED|1:0\\n' ;; esac`,
    );
    const squeue = fakeCommand("squeue", `echo '{"jobs": []}'`);
    const spool = await DiskSpool.open({ dir: join(dir, "spool") });
    try {
      const ctl = new SlurmController({
        cluster: "hpc1",
        spool,
        squeueCommand: squeue.path,
        sacctCommand: sacct.path,
        uidOf: async (user) => (user === "root" ? me : undefined),
      });
      await ctl.poll();
      const batch = await spool.peek({ maxRecords: 10 });
      const byId = new Map(batch.map((b) => [(b.value as JobRecord).jobId, b.value as JobRecord]));
      const rec = byId.get("5")!;
      expect(validateJobRecord(rec)).toMatchObject({ ok: true });
      expect(rec.outcome).toMatchObject({
        state: "FAILED",
        exitCode: 1,
        stderrTail: { path: join(dir, "fail-5.err"), text: TRACEBACK, truncated: false },
      });
      expect(byId.get("1")!.outcome?.stderrTail).toBeUndefined();
      expect(ctl.stats().stderrTails).toBe(1);
    } finally {
      await spool.close();
      sacct.cleanup();
      squeue.cleanup();
    }
  });

  it("finds a 22.05 job's --output=%x-%j.out through what squeue said while it ran", async () => {
    // Real 22.05 outputs: squeue --json of a running job with its pattern, sacct --json of its end.
    const queued = JSON.parse(
      readFileSync(join(import.meta.dirname, "fixtures", "squeue-output-pattern.json"), "utf8"),
    );
    const running = {
      ...queued.jobs[0],
      job_id: 5,
      name: "fail",
      standard_output: join(dir, "%x-%j.out"),
      current_working_directory: dir,
    };
    writeFileSync(join(dir, "fail-5.out"), TRACEBACK);
    writeFileSync(join(dir, "squeue.json"), JSON.stringify({ ...queued, jobs: [running] }));
    writeFileSync(join(dir, "sacct.json"), JSON.stringify({ ...real, jobs: [] }));
    const ended = { ...job(5), working_directory: dir };
    const squeue = fakeCommand("squeue", `cat "${join(dir, "squeue.json")}"`);
    const sacct = fakeCommand(
      "sacct",
      `case "$*" in *--json*) cat "${join(dir, "sacct.json")}" ;; *-P*) printf '5|FAILED|1:0\\n' ;; esac`,
    );
    const spool = await DiskSpool.open({ dir: join(dir, "spool") });
    const controller = () =>
      new SlurmController({
        cluster: "hpc1",
        spool,
        squeueCommand: squeue.path,
        sacctCommand: sacct.path,
        uidOf: async () => me,
      });
    try {
      const ctl = controller();
      await ctl.poll();
      // The job ended and slurmctld forgot it; sacct knows its end but not its output path.
      writeFileSync(join(dir, "squeue.json"), JSON.stringify({ ...queued, jobs: [] }));
      writeFileSync(join(dir, "sacct.json"), JSON.stringify({ ...real, jobs: [ended] }));
      await ctl.poll();
      const records = (await spool.peek({ maxRecords: 10 })).map((b) => b.value as JobRecord);
      expect(records.map((r) => r.phase)).toEqual(["started", "ended"]);
      expect(records[1].outcome?.stderrTail).toEqual({
        path: join(dir, "fail-5.out"),
        text: TRACEBACK,
        truncated: false,
      });
      // A controller that never saw the job run looks for sbatch's default file, which is not there.
      const late = controller();
      await late.poll();
      expect(late.stats()).toMatchObject({ records: 1, stderrTails: 0 });
    } finally {
      await spool.close();
      sacct.cleanup();
      squeue.cleanup();
    }
  });
});
