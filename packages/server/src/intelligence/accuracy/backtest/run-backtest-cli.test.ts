import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { mulberry32 } from "../../training/quantile-gbdt.js";
import { computeMetrics, type ScoredJob } from "./metrics.js";
import type { PredictionLine } from "./prediction-lines.js";
import type { BacktestReport } from "./report.js";
import { runBacktestCommand } from "./run-backtest-cli.js";

/**
 * A small Standard Workload Format log: six users, each with a habit of memory and run time, who
 * ask for about twice what they use; one job in twenty fails, a few run into their time limit.
 */
function syntheticSwf(jobs: number): string {
  const rng = mulberry32(7);
  const lines = ["; Version: 2.2", "; synthetic log for the backtest CLI test"];
  for (let i = 1; i <= jobs; i++) {
    const user = 1 + (i % 6);
    const procs = 1 + (user % 3);
    const memKbPerProc = Math.round(50_000 * user * (0.8 + 0.4 * rng()));
    const requestedTime = 600 * user;
    let runTime = Math.round(250 * user * (0.5 + rng()));
    let status = rng() < 0.05 ? 0 : 1;
    if (rng() < 0.02) {
      runTime = requestedTime;
      status = 0;
    }
    const fields = [
      i,
      i * 300,
      5,
      runTime,
      procs,
      -1,
      memKbPerProc,
      procs,
      requestedTime,
      2 * 50_000 * user,
      status,
      user,
      1,
      user,
      1,
      1,
      -1,
      -1,
    ];
    lines.push(fields.join(" "));
  }
  return `${lines.join("\n")}\n`;
}

const dir = mkdtempSync(join(tmpdir(), "jobsight-backtest-cli-"));
const trace = join(dir, "synthetic.swf");
let stdout: string[];
let stderr: string[];

beforeAll(() => writeFileSync(trace, syntheticSwf(4000)));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

function capture(): void {
  stdout = [];
  stderr = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    stdout.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr.push(String(chunk));
    return true;
  });
}

describe("jobsight backtest --predictions", () => {
  it("writes every scored prediction, and the lines give back the report's figures", async () => {
    const file = join(dir, "predictions.jsonl");
    capture();
    const code = await runBacktestCommand([trace, "--json", "--resources", "memory", "--predictions", file]);
    vi.restoreAllMocks();
    expect(code, stderr.join("")).toBe(0);
    const report = JSON.parse(stdout.join("")) as BacktestReport;
    const memory = report.resources.memory;
    if (!memory) throw new Error("no memory report");

    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as PredictionLine);
    expect(memory.evaluated).toBeGreaterThan(1000);
    expect(memory.censored).toBeGreaterThan(0);
    expect(memory.model.coverage).toBeGreaterThan(0.5);
    expect(lines.length).toBe(memory.evaluated + memory.censored);
    expect(lines.filter((l) => l.censored).length).toBe(memory.censored);
    for (const l of lines) {
      expect(l.resource).toBe("memory");
      expect(l.modelVersion).toMatch(/^bt-\d+$/);
      if (l.status === "recommended") {
        // Coherent advice: the value lies in its range.
        expect(l.low).toBeLessThanOrEqual(l.value as number);
        expect(l.value).toBeLessThanOrEqual(l.high as number);
        expect(l.confidence).toBeGreaterThan(0);
        expect(l.confidence).toBeLessThanOrEqual(1);
      } else {
        expect([l.value, l.low, l.high, l.confidence]).toEqual([null, null, null, null]);
      }
    }
    expect(new Set(lines.map((l) => l.modelVersion)).size).toBe(memory.trainings);

    // Recomputed from the file alone, on the completed jobs: the report's own numbers.
    const exact = lines.filter((l) => !l.censored);
    const model: ScoredJob[] = exact.map((l) =>
      l.status === "recommended"
        ? {
            actual: l.actual,
            value: l.value as number,
            low: l.low as number,
            high: l.high as number,
            confidence: l.confidence as number,
            cap: memory.capAtRequest ? (l.request ?? undefined) : undefined,
          }
        : { actual: l.actual },
    );
    const recomputed = computeMetrics(model, memory.model.nominalRangeCoverage);
    expect(recomputed.coverage).toBeCloseTo(memory.model.coverage, 12);
    expect(recomputed.underPredictionRate).toBeCloseTo(memory.model.underPredictionRate, 12);
    expect(recomputed.weightedUnderPredictionRate).toBeCloseTo(memory.model.weightedUnderPredictionRate, 12);
    expect(recomputed.slack).toBeCloseTo(memory.model.slack, 12);
    expect(recomputed.rangeCoverage).toBeCloseTo(memory.model.rangeCoverage as number, 12);
    expect(memory.model.valueInRange).toBe(1);
    // Coverage by the user's completed jobs adds up to the report's: six users, each with 100–999.
    // Empty buckets stay (coverage null in JSON), so a reader takes each span from the next bucket.
    const byHistory = memory.model.coverageByHistory;
    expect(byHistory.map((h) => h.fromJobs)).toEqual([0, 10, 100, 1000]);
    expect(byHistory.map((h) => h.jobs > 0)).toEqual([false, false, true, false]);
    expect(byHistory.filter((h) => h.jobs === 0).every((h) => h.coverage === null)).toBe(true);
    expect(byHistory.reduce((n, h) => n + h.jobs, 0)).toBe(memory.evaluated);
    const covered = byHistory.reduce((n, h) => n + (h.jobs > 0 ? h.coverage * h.jobs : 0), 0);
    expect(covered / memory.evaluated).toBeCloseTo(memory.model.coverage, 12);
    const requests = computeMetrics(exact.map((l) => ({ actual: l.actual, value: l.request ?? undefined })));
    expect(requests.slack).toBeCloseTo(memory.request.slack, 12);
    expect(requests.underPredictionRate).toBeCloseTo(memory.request.underPredictionRate, 12);
  }, 120_000);

  it("refuses a predictions file it cannot create, with exit code 2, before any work", async () => {
    capture();
    const code = await runBacktestCommand([trace, "--predictions", join(dir, "missing", "p.jsonl")]);
    vi.restoreAllMocks();
    expect(code).toBe(2);
    expect(stderr.join("")).toMatch(/--predictions .*missing.*ENOENT/);
    expect(stdout.join("")).toBe("");
  });
});

describe("jobsight backtest --settings", () => {
  it("refuses a bad settings file with exit code 2 and each problem as path: message, before any work", async () => {
    const file = join(dir, "bad-settings.json");
    writeFileSync(file, JSON.stringify({ trees: 0, conformal: { missRate: 0.7, binz: 3 } }));
    capture();
    const code = await runBacktestCommand([trace, "--json", "--settings", file]);
    vi.restoreAllMocks();
    expect(code).toBe(2);
    const lines = stderr.join("").trimEnd().split("\n");
    expect(lines[0]).toBe(`--settings ${file}: 3 problems`);
    expect(lines.slice(1).sort()).toEqual([
      "  conformal.binz: is not a known setting",
      "  conformal.missRate: must be a number in (0, 0.5), got 0.7",
      "  trees: must be an integer ≥ 1, got 0",
    ]);
    expect(stderr.join("")).not.toMatch(/\bat \S+:\d+:\d+/); // no stack trace
    expect(stdout.join("")).toBe("");
  });

  it("refuses a settings file that is missing or not JSON with exit code 2", async () => {
    const broken = join(dir, "broken-settings.json");
    writeFileSync(broken, "{ trees: 10 }");
    for (const [file, problem] of [
      [join(dir, "no-such-settings.json"), "cannot be read (ENOENT"],
      [broken, "is not JSON ("],
    ]) {
      capture();
      const code = await runBacktestCommand([trace, "--settings", file]);
      vi.restoreAllMocks();
      expect(code).toBe(2);
      expect(stderr.join("")).toContain(`--settings ${file}: 1 problem\n  ${file}: ${problem}`);
      expect(stdout.join("")).toBe("");
    }
  });

  it("trains with the settings and repeats them in the JSON report", async () => {
    const file = join(dir, "settings.json");
    // Fewest jobs per user far above what any user has: the model abstains on every job.
    const settings = { trees: 3, maxDepth: 2, minUserJobs: 1_000_000, conformal: { missRate: 0.01 } };
    writeFileSync(file, JSON.stringify(settings));
    capture();
    const code = await runBacktestCommand([trace, "--json", "--resources", "memory", "--settings", file]);
    vi.restoreAllMocks();
    expect(code, stderr.join("")).toBe(0);
    const report = JSON.parse(stdout.join("")) as BacktestReport;
    expect(report.settings).toEqual(settings);
    const memory = report.resources.memory;
    if (!memory) throw new Error("no memory report");
    expect(memory.evaluated).toBeGreaterThan(1000);
    expect(memory.model.coverage).toBe(0);
    expect(memory.request.coverage).toBeGreaterThan(0.5);
  }, 120_000);
});
