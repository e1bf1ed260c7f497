import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { comparableReport, DEMO, type DemoRun, demoProcesses, eventually, runDemo } from "./demo-run.js";

const dataDirs: string[] = [];
function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "jobsight-demo-test-"));
  // The embedded PostgreSQL runs as an unprivileged user when the tests run as root.
  chmodSync(dir, 0o755);
  dataDirs.push(dir);
  return dir;
}

/** What a run that was stopped must leave behind: none of its processes, no PostgreSQL lock. */
async function expectNothingLeft(run: DemoRun, dataDir: string): Promise<void> {
  // PostgreSQL is waited for before the demo exits: its lock file goes with it.
  expect(existsSync(join(dataDir, "postgres", "data", "postmaster.pid")), run.output).toBe(false);
  // A killed shell's last `sleep` may take a moment to end.
  const left = await eventually(
    () => demoProcesses(run.pid, dataDir),
    (p) => p.length === 0,
    3_000,
  );
  expect(left, run.output).toEqual([]);
}

// The built demo, as `pnpm demo` runs it once built (pnpm-demo.test.ts runs that script line), on 3000 jobs.
describe.skipIf(!existsSync(DEMO))("pnpm demo", () => {
  const dataDir = newDataDir();
  let first: DemoRun;

  beforeAll(async () => {
    first = await runDemo(dataDir, ["--exit-after"]);
  }, 170_000);

  afterAll(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("runs every step and exits cleanly", async () => {
    const { code, output } = first;
    expect(code, output).toBe(0);
    for (const step of [
      /\[1\] server started .*http:\/\/127\.0\.0\.1:\d+/,
      /\[2\] cluster registered: demo/,
      /\[3\] node generated/,
      /\[4\] jobs submitted and started/,
      /\[5\] collector ran in node mode: 14 rounds .* 4 jobs/,
      /\[6\] jobs ended/,
      /\[7\] history imported .*: 3000 jobs imported, 0 already there/,
      /\[8\] model trained: \S+ on \d+ jobs/,
      /\[9\] prediction for examples\/demo\/job\.sbatch/,
      /\[10\] prediction for examples\/demo\/pod\.yaml/,
      /\[11\] diagnoses of the three problem jobs/,
      /Stopped \(--exit-after\)\./,
    ])
      expect(output).toMatch(step);
    await expectNothingLeft(first, dataDir);
  });

  it("prints a prediction table for both submissions", () => {
    const tables = first.output.match(/resource\s+requested\s+recommended\s+likely use\s+confidence/g) ?? [];
    expect(tables).toHaveLength(2);
    expect(first.output).toMatch(/^\s+memory\s+2\.0 GiB/m);
    expect(first.output).toMatch(/^\s+walltime\s+04:00:00/m);
  });

  it("names the right finding for each problem job", () => {
    const block = (jobId: string) =>
      first.output.slice(first.output.indexOf(`  job ${jobId} (`)).split(/\n {2}job |\n\n/)[0];
    expect(block("900101")).toMatch(/\[error\] oom_kill/);
    expect(block("900102")).toMatch(/stalled_data_loader/);
    expect(block("900103")).toMatch(/gpus_unused: 2 of the 2 GPUs/);
  });

  it("prints the report and the job pages with the token", () => {
    expect(first.output).toMatch(/Web report: http:\/\/127\.0\.0\.1:\d+\/report\/#token=jsp_\S+/);
    for (const id of ["900101", "900102", "900103"])
      expect(first.output).toMatch(new RegExp(`/report/jobs\\.html\\?id=${id}&cluster=demo#token=`));
  });

  it("shows the same report when run again on the same folder, and Ctrl-C then stops all it started", async () => {
    // Ctrl-C under pnpm arrives twice: from the terminal, and passed on by pnpm.
    const again = await runDemo(dataDir, [], {
      interruptWhen: /Server running; press Ctrl-C to stop\./,
      interrupt: (pid) => {
        process.kill(-pid, "SIGINT");
        setTimeout(() => process.kill(pid, "SIGINT"), 50);
      },
    });
    expect({ code: again.code, signal: again.signal }, again.output).toEqual({ code: 0, signal: null });
    expect(again.output).toMatch(/Stopping \(Ctrl-C\)…\nStopped\.\n$/);
    expect(again.output).not.toMatch(/failed|Error/);
    expect(comparableReport(again.output)).toEqual(comparableReport(first.output));
    await expectNothingLeft(again, dataDir);
  }, 170_000);

  it("stops everything it started when Ctrl-C comes in the middle of a step", async () => {
    const dir = newDataDir();
    const run = await runDemo(dir, [], {
      // The collector (and its nvidia-smi) runs next.
      interruptWhen: /\[4\] jobs submitted and started/,
      interrupt: (pid) => setTimeout(() => process.kill(-pid, "SIGINT"), 1_500),
    });
    expect({ code: run.code, signal: run.signal }, run.output).toEqual({ code: 0, signal: null });
    expect(run.output).not.toMatch(/\[5\] collector ran/);
    expect(run.output).toMatch(/Stopping \(Ctrl-C\)…\nStopped\.\n$/);
    expect(run.output).not.toMatch(/failed|Error/);
    await expectNothingLeft(run, dir);
  }, 120_000);

  it("never empties a folder it did not make", async () => {
    const dir = newDataDir();
    writeFileSync(join(dir, "notes.txt"), "mine\n");
    const run = await runDemo(dir, ["--exit-after"]);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(/holds files the demo did not make/);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("mine\n");
  }, 60_000);
});
