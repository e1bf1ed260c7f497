import { describe, expect, it } from "vitest";
import type { BacktestFigures } from "../registry/model-manifest.js";
import { compareBacktests } from "./compare-backtests.js";

const figures = (over: Partial<BacktestFigures> = {}): BacktestFigures => ({
  evaluated: 1000,
  recommended: 900,
  coverage: 0.9,
  underPredictionRate: 0.008,
  weightedUnderPredictionRate: 0.015,
  slack: 0.5,
  ...over,
});

describe("compareBacktests", () => {
  it("accepts the first model", () => {
    expect(compareBacktests({}, undefined)).toEqual({
      accepted: true,
      reasons: ["first model: nothing to compare with"],
    });
  });

  it("accepts a model as good within the tolerances, even if it misses a little more below the goal", () => {
    const d = compareBacktests(
      {
        memory: {
          candidate: figures({ underPredictionRate: 0.012, slack: 0.6 }),
          active: figures({ underPredictionRate: 0.004 }),
          basis: "same_jobs",
        },
      },
      "v1",
    );
    expect(d.accepted).toBe(true);
    expect(d.comparedWith).toBe("v1");
  });

  it("rejects a model that misses more, covers less, wastes more or loses a resource, saying which", () => {
    const d = compareBacktests(
      {
        memory: {
          candidate: figures({ underPredictionRate: 0.04, weightedUnderPredictionRate: 0.09 }),
          active: figures(),
          basis: "same_jobs",
        },
        walltime: { candidate: figures({ coverage: 0.7, slack: 1.2 }), active: figures(), basis: "recorded" },
        cores: { active: figures(), basis: "recorded" },
      },
      "v1",
    );
    expect(d.accepted).toBe(false);
    expect(d.reasons).toEqual([
      "memory: under-prediction 4.00% vs 0.80% (same jobs)",
      "memory: weighted under-prediction 9.00% vs 1.50% (same jobs)",
      "cores: the new model has no backtest (or no model) where the active one has",
      "walltime: coverage 70.00% vs 90.00% (own holdouts)",
      "walltime: slack 120.00% vs 50.00% (own holdouts)",
    ]);
  });
});
