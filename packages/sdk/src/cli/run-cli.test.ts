import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JobRecord } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { captureIo } from "../test-support/capture-io.js";
import { createFakeServer } from "../testing/fake-server.js";
import { runCli } from "./run-cli.js";

const GiB = 2 ** 30;
const script =
  "#!/bin/bash\n#SBATCH --job-name=train\n#SBATCH --mem=64G\n#SBATCH -c 8\n#SBATCH --time=1-00:00:00\npython train.py\n";

function job(i: number, state: "COMPLETED" | "OUT_OF_MEMORY" = "COMPLETED"): JobRecord {
  const t = new Date(Date.UTC(2026, 10, 1, i)).toISOString();
  return {
    cluster: "hpc1",
    jobId: String(100 + i),
    phase: "ended",
    source: "sacct-import",
    spec: {
      cluster: "hpc1",
      scheduler: "slurm",
      user: "alice",
      executable: "python train.py",
      requested: { memoryBytes: 64 * GiB },
    },
    submittedAt: t,
    endedAt: t,
    outcome: { state },
    peaks: { memoryBytes: 20 * GiB, runTimeSeconds: 3000, coresUsed: 3.2 },
  };
}

function setup(jobs: JobRecord[] = [job(1), job(2), job(3)]) {
  const fake = createFakeServer({ jobs });
  const env = { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_CLUSTER: "hpc1", USER: "alice" };
  const cap = captureIo({ fetch: fake.fetch, env });
  writeFileSync(join(cap.dir, "job.sbatch"), script);
  return { fake, ...cap };
}

describe("jobsight predict", () => {
  it("shows the table and the diff, and leaves the file alone without --apply", async () => {
    const { io, dir, stdout } = setup();
    expect(await runCli(["predict", "job.sbatch"], io)).toBe(0);
    const out = stdout();
    expect(out).toMatch(/memory\s+64\.0 GiB\s+24\.0 GiB\s+20\.0 GiB – 24\.0 GiB\s+75%/);
    expect(out).toMatch(/cores\s+8\s+4/);
    expect(out).toMatch(/gpus\s+—\s+—\s+—\s+insufficient evidence/);
    expect(out).toContain("-#SBATCH --mem=64G\n");
    expect(out).toContain("+#SBATCH --mem=24G\n");
    expect(out).toContain("run with --apply");
    expect(out).not.toContain("\u001b[");
    expect(readFileSync(join(dir, "job.sbatch"), "utf8")).toBe(script);
  });

  it("writes the edit with --apply after keeping a backup", async () => {
    const { io, dir, stdout } = setup();
    expect(await runCli(["predict", "job.sbatch", "--apply"], io)).toBe(0);
    expect(readFileSync(join(dir, "job.sbatch.bak"), "utf8")).toBe(script);
    expect(readFileSync(join(dir, "job.sbatch"), "utf8")).toContain("#SBATCH --mem=24G\n");
    expect(stdout()).toContain("applied to job.sbatch");
  });

  it("prints one JSON document with --json, and sends the spec with the script's hash", async () => {
    const { io, fake, stdout } = setup();
    expect(await runCli(["predict", "job.sbatch", "--json", "--policy", "policy.json"], io)).toBe(2);
    writeFileSync(join(io.cwd, "policy.json"), JSON.stringify({ name: "p", leaveAlone: ["walltime"] }));
    expect(await runCli(["predict", "job.sbatch", "--json", "--policy", "policy.json"], io)).toBe(0);
    const doc = JSON.parse(stdout());
    expect(doc.spec.requested).toEqual({ memoryBytes: 64 * GiB, cores: 8, walltimeSeconds: 86_400 });
    expect(doc.edit.changes.map((c: { resource: string }) => c.resource)).toEqual(["memory", "cores"]);
    expect(doc.skipped).toContainEqual({ resource: "walltime", reason: "the policy leaves it alone" });
    const sent = fake.requests.find((r) => r.operationId === "createPrediction")!.body as {
      spec: { scriptHash: string };
    };
    expect(sent.spec.scriptHash).toMatch(/^[a-f0-9]{64}$/);
  });

  it("says which rule moved a recommendation, such as a recent memory kill", async () => {
    const MiB = 2 ** 20;
    const fake = createFakeServer({
      predict: () => [
        {
          resource: "memory",
          status: "ok",
          unit: "bytes",
          requested: 64 * GiB,
          value: 96 * GiB,
          low: 64 * GiB,
          high: 96 * GiB,
          confidence: 0.5,
          evidence: {
            group: "user=alice,executable=train",
            jobs: 1,
            censoredJobs: 1,
            features: ["recent_oom_kill"],
          },
          adjustments: [
            { rule: "recent_oom", before: 64 * GiB, after: 96 * GiB },
            { rule: "rounding", before: 96 * GiB, after: 96 * GiB + MiB },
          ],
        },
      ],
    });
    const cap = captureIo({
      fetch: fake.fetch,
      env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_CLUSTER: "hpc1", USER: "alice" },
    });
    writeFileSync(join(cap.dir, "job.sbatch"), script);
    expect(await runCli(["predict", "job.sbatch"], cap.io)).toBe(0);
    const out = cap.stdout();
    expect(out).toContain("memory 64.0 GiB → 96.0 GiB: a recent run of this job was killed for memory");
    // Rounding moves values all the time and gets no line.
    expect(out).not.toMatch(/→ 96\.0 GiB: .*granularity|rounding/);
    expect(out).toContain("+#SBATCH --mem=96G\n");
  });

  it("predicts several files in one batch", async () => {
    const { io, fake, stdout } = setup();
    writeFileSync(
      join(io.cwd, "pod.yaml"),
      "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: i\n",
    );
    expect(await runCli(["predict", "job.sbatch", "pod.yaml", "--json"], io)).toBe(0);
    expect(JSON.parse(stdout()).map((d: { format: string }) => d.format)).toEqual(["sbatch", "kubernetes"]);
    expect(fake.requests.filter((r) => r.operationId === "createPredictionBatch")).toHaveLength(1);
  });

  it("exits 2 without a server URL, a cluster or a readable file, naming what is missing", async () => {
    const { io, stderr } = captureIo({ env: { USER: "alice" } });
    expect(await runCli(["predict", "job.sbatch"], io)).toBe(2);
    expect(stderr()).toContain("no Jobsight server URL");
    const other = setup();
    expect(await runCli(["predict", "missing.sbatch"], other.io)).toBe(2);
    expect(other.stderr()).toContain("missing.sbatch");
    other.io.env.JOBSIGHT_CLUSTER = undefined;
    expect(await runCli(["predict", "job.sbatch"], other.io)).toBe(2);
    expect(other.stderr()).toContain("no cluster");
  });

  it("exits 3 when the server cannot be reached", async () => {
    const { io, fake, stderr } = setup();
    io.env.JOBSIGHT_RETRIES = "0";
    fake.failNext({ network: true });
    expect(await runCli(["predict", "job.sbatch"], io)).toBe(3);
    expect(stderr()).toContain("could not reach the Jobsight server");
  });
});

describe("jobsight diagnose", () => {
  it("exits 1 on a finding of severity error, printing the Markdown", async () => {
    const { io, stdout } = setup([job(7, "OUT_OF_MEMORY")]);
    expect(await runCli(["diagnose", "107"], io)).toBe(1);
    expect(stdout()).toContain("# Job 107 on hpc1");
    expect(stdout()).toContain("`oom_kill`");
  });

  it("exits 0 for a healthy job and prints JSON with --format json", async () => {
    const { io, stdout } = setup([job(8)]);
    expect(await runCli(["diagnose", "108", "--format", "json", "--cluster", "hpc1"], io)).toBe(0);
    expect(JSON.parse(stdout())).toMatchObject({ jobId: "108", cluster: "hpc1" });
  });

  it("prints the same JSON with --json, like every other command", async () => {
    const { io, stdout } = setup([job(7, "OUT_OF_MEMORY")]);
    expect(await runCli(["diagnose", "107", "--json"], io)).toBe(1);
    const diagnosis = JSON.parse(stdout());
    expect(diagnosis).toMatchObject({ jobId: "107", cluster: "hpc1" });
    expect(diagnosis.findings.map((f: { kind: string }) => f.kind)).toContain("oom_kill");
  });

  it("exits 2 for an unknown job or a bad format, 3 when the server fails", async () => {
    const { io, fake, stderr } = setup([]);
    expect(await runCli(["diagnose", "999"], io)).toBe(2);
    expect(stderr()).toContain("NOT_FOUND");
    expect(await runCli(["diagnose", "999", "--format", "html"], io)).toBe(2);
    io.env.JOBSIGHT_RETRIES = "0";
    fake.failNext({ status: 503 });
    expect(await runCli(["diagnose", "999"], io)).toBe(3);
  });
});

describe("jobsight help and errors", () => {
  it.each([
    ["--help"],
    ["help", "predict"],
    ["predict", "--help"],
    ["diagnose", "-h"],
    ["import", "--help"],
    ["backtest", "--help"],
    ["server", "--help"],
  ])("prints help for %j and exits 0", async (...args) => {
    const { io, stdout } = captureIo();
    expect(await runCli(args, io)).toBe(0);
    expect(stdout()).toMatch(/Usage: jobsight/);
  });

  it("exits 2 on an unknown command or option", async () => {
    const { io, stderr } = captureIo();
    expect(await runCli(["frobnicate"], io)).toBe(2);
    expect(await runCli(["predict", "--frob"], io)).toBe(2);
    expect(await runCli([], io)).toBe(2);
    expect(stderr()).toContain("unknown command 'frobnicate'");
  });

  it("prints the package version", async () => {
    const { io, stdout } = captureIo();
    expect(await runCli(["--version"], io)).toBe(0);
    expect(stdout().trim()).toBe(
      JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version,
    );
  });

  it("uses colours only when asked on a terminal", async () => {
    const { io, stdout } = setup();
    io.env.FORCE_COLOR = "1";
    expect(await runCli(["predict", "job.sbatch"], io)).toBe(0);
    expect(stdout()).toContain("\u001b[32m+#SBATCH --mem=24G\u001b[39m");
    expect(existsSync(join(io.cwd, "job.sbatch.bak"))).toBe(false);
  });
});
