import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../../../..");
const DEMO = join(ROOT, "packages", "server", "dist", "demo", "main.js");

// The built demo, as `pnpm demo` runs it, on the first 3000 jobs of the LANL trace.
describe.skipIf(!existsSync(DEMO))("pnpm demo --exit-after", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "jobsight-demo-test-"));
  // The embedded PostgreSQL runs as an unprivileged user when the tests run as root.
  chmodSync(dataDir, 0o755);
  let output = "";
  let code: number | null = null;

  beforeAll(async () => {
    const child = spawn(
      process.execPath,
      [DEMO, "--exit-after", "--history-lines", "3000", "--port", "0", "--data-dir", dataDir],
      { cwd: ROOT, env: { ...process.env, JOBSIGHT_DEMO_EXIT: "" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    code = await new Promise<number | null>((done) => child.on("exit", done));
  }, 170_000);

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("runs every step and exits cleanly", () => {
    expect(code, output).toBe(0);
    for (const step of [
      /\[1\] server started .*http:\/\/127\.0\.0\.1:\d+/,
      /\[2\] cluster registered: demo/,
      /\[3\] node generated/,
      /\[4\] jobs submitted and started/,
      /\[5\] collector ran in node mode: 14 rounds .* 4 jobs/,
      /\[6\] jobs ended/,
      /\[7\] history imported .*: 3000 jobs imported/,
      /\[8\] model trained: \S+ on \d+ jobs/,
      /\[9\] prediction for examples\/demo\/job\.sbatch/,
      /\[10\] prediction for examples\/demo\/pod\.yaml/,
      /\[11\] diagnoses of the three problem jobs/,
      /Stopped \(--exit-after\)\./,
    ])
      expect(output).toMatch(step);
  });

  it("prints a prediction table for both submissions", () => {
    const tables = output.match(/resource\s+requested\s+recommended\s+likely use\s+confidence/g) ?? [];
    expect(tables).toHaveLength(2);
    expect(output).toMatch(/^\s+memory\s+2\.0 GiB/m);
    expect(output).toMatch(/^\s+walltime\s+04:00:00/m);
  });

  it("names the right finding for each problem job", () => {
    const block = (jobId: string) =>
      output.slice(output.indexOf(`  job ${jobId} (`)).split(/\n {2}job |\n\n/)[0];
    expect(block("900101")).toMatch(/\[error\] oom_kill/);
    expect(block("900102")).toMatch(/stalled_data_loader/);
    expect(block("900103")).toMatch(/gpus_unused: 2 of the 2 GPUs/);
  });

  it("prints the report and the job pages with the token", () => {
    expect(output).toMatch(/Web report: http:\/\/127\.0\.0\.1:\d+\/report\/#token=jsp_\S+/);
    for (const id of ["900101", "900102", "900103"])
      expect(output).toMatch(new RegExp(`/report/jobs\\.html\\?id=${id}&cluster=demo#token=`));
  });
});
