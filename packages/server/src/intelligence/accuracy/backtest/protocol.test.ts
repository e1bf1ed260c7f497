import { describe, expect, it } from "vitest";
import { buildFeatureTable } from "../../features/feature-table.js";
import type { HistoryJob } from "../../history-job.js";
import { resourceSpec } from "../../resources.js";
import { mulberry32 } from "../../training/quantile-gbdt.js";
import { vpaBaseline } from "./baselines.js";
import { firstEvaluatedIndex, runModelProtocol } from "./protocol.js";

const N = 900;

/** One user re-running one program every 100 s; each run lasts 50 s, except job `slow`. */
function history(slow: number): HistoryJob[] {
  const rng = mulberry32(7);
  return Array.from({ length: N }, (_, i) => {
    const submitTime = 1_000_000 + i * 100;
    const run = i === slow ? 100_000 : 50;
    return {
      id: String(i),
      submitTime,
      startTime: submitTime,
      endTime: submitTime + run,
      user: String(i % 3),
      executable: String(i % 5),
      requested: { memoryBytes: 2 ** 32, cores: 4 },
      used: { memoryBytes: 2 ** 28 * Math.exp(rng() * 2) },
      outcome: "completed" as const,
    };
  });
}

const options = { training: { trees: 5, maxDepth: 3, conformal: { minPerBin: 20 } } };

function predictFirst(jobs: HistoryJob[]) {
  const table = buildFeatureTable(jobs, resourceSpec("memory"));
  return runModelProtocol(table, options).predictions[0];
}

describe("backtest protocol", () => {
  const first = firstEvaluatedIndex(N, 0.3);
  const slow = first - 5;

  it("never lets a job that had not ended by a submission change its prediction", () => {
    const base = history(slow);
    const peeked = base.map((j, i) =>
      i >= first || i === slow ? { ...j, used: { memoryBytes: (j.used.memoryBytes as number) * 1000 } } : j,
    );
    expect(predictFirst(peeked)).toEqual(predictFirst(base));
    expect(vpaBaseline(peeked, resourceSpec("memory"))[first]).toBe(
      vpaBaseline(base, resourceSpec("memory"))[first],
    );
  });

  it("does use a job that ended just before the submission (the check above can fail)", () => {
    const base = history(slow);
    const changed = base.map((j, i) =>
      i === first - 3 ? { ...j, used: { memoryBytes: (j.used.memoryBytes as number) * 1000 } } : j,
    );
    expect(predictFirst(changed)).not.toEqual(predictFirst(base));
    // The baseline's P90 only moves when many past jobs of the group move.
    const past = base.map((j, i) =>
      i < first ? { ...j, used: { memoryBytes: (j.used.memoryBytes as number) * 1000 } } : j,
    );
    expect(vpaBaseline(past, resourceSpec("memory"))[first]).not.toBe(
      vpaBaseline(base, resourceSpec("memory"))[first],
    );
  });

  it("evaluates exactly the last 30% of jobs by submit time", () => {
    const table = buildFeatureTable(history(-1), resourceSpec("memory"));
    const result = runModelProtocol(table, options);
    expect(result.firstEvaluated).toBe(630);
    expect(result.predictions).toHaveLength(270);
    expect(result.predictions.filter((p) => p.status === "ok").length).toBeGreaterThan(200);
  });
});
