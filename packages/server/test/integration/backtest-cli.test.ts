// `jobsight backtest` as a user runs it: the SDK's CLI hands the command to the server's bin, which
// replays the trace under the evaluation protocol and prints the JSON report.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const cli = join(repo, "packages", "sdk", "dist", "cli", "main.js");
const dir = mkdtempSync(join(tmpdir(), "jobsight-backtest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("jobsight backtest", () => {
  it("replays the first 6,000 jobs of LANL-CM5 and reports model, VPA and request side by side", () => {
    const head = execFileSync(
      "bash",
      ["-c", `zcat '${repo}/data/traces/LANL-CM5-1994-4.1-cln.swf.gz' | head -6000`],
      {
        maxBuffer: 64 * 2 ** 20,
      },
    );
    const trace = join(dir, "lanl-head.swf");
    writeFileSync(trace, head);
    const run = spawnSync(
      process.execPath,
      [cli, "backtest", trace, "--json", "--resources", "memory,walltime"],
      {
        encoding: "utf8",
        cwd: repo,
        maxBuffer: 64 * 2 ** 20,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.trace).toBe("lanl-head.swf");
    expect(report.jobs).toBeGreaterThan(5900);
    expect(report.evaluated).toBe(Math.round(report.jobs * 0.3));
    const memory = report.resources.memory;
    expect(memory.evaluated).toBeGreaterThan(1000);
    for (const predictor of ["model", "vpa", "request"]) {
      const m = memory[predictor];
      expect(m.coverage, predictor).toBeGreaterThan(0);
      expect(m.coverage, predictor).toBeLessThanOrEqual(1);
      expect(m.underPredictionRate, predictor).toBeGreaterThanOrEqual(0);
      expect(m.slack, predictor).toBeGreaterThan(0);
    }
    // The model bounds its misses: fewer jobs under-predicted than the users' own requests.
    expect(memory.model.underPredictionRate).toBeLessThan(memory.request.underPredictionRate);
    // [low, value]: 0.8% above the value, 1% below the low end.
    expect(memory.model.nominalRangeCoverage).toBeCloseTo(0.982, 12);
    expect(memory.model.calibration.length).toBeGreaterThan(0);
    expect(run.stderr).toMatch(/100% /);
  }, 240_000);

  it("refuses a trace format it cannot backtest, and a window out of range, with exit code 2", () => {
    const bad = spawnSync(process.execPath, [cli, "backtest", "x.json", "--format", "sacct"], {
      encoding: "utf8",
      cwd: repo,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--format sacct");
    const window = spawnSync(process.execPath, [cli, "backtest", "x.swf", "--window", "2"], {
      encoding: "utf8",
      cwd: repo,
    });
    expect(window.status).toBe(2);
    expect(window.stderr).toContain("--window 2");
  });
});
