import { describe, expect, it } from "vitest";
import { leaveOneTraceOut, renderLeaveOneOut } from "./leave-one-out.mjs";

type Figures = {
  /** How many of the 7 targets to miss (0..5), from the first. */
  miss?: number;
  slackAt1pct?: number;
  /** The best simple predictor's slack at ≤1% on this trace. */
  best?: number;
};

/**
 * A `jobsight backtest --json` report with one resource whose model meets every target of the
 * evaluation, except the first `miss` of: under-prediction, weighted under-prediction, coverage,
 * range coverage, calibration.
 */
function report(trace: string, { miss = 0, slackAt1pct = 0.3, best = 1 }: Figures = {}) {
  const model = {
    underPredictionRate: miss > 0 ? 0.05 : 0.005,
    weightedUnderPredictionRate: miss > 1 ? 0.05 : 0.01,
    coverage: miss > 2 ? 0.5 : 0.95,
    rangeCoverage: miss > 3 ? 0.9 : 0.97,
    nominalRangeCoverage: 0.98,
    calibration: [{ confidence: 0.95, observed: miss > 4 ? 0.8 : 0.95, jobs: 1000 }],
    valueInRange: 1,
    slack: best / 4,
    slackAt1pct,
  };
  const reference = { coverage: 1, slack: 3 * best, slackAt1pct: best };
  return {
    trace: `${trace}.swf.gz`,
    resources: { memory: { evaluated: 1000, censored: 0, model, request: reference, vpa: { ...reference } } },
  };
}

const traces = ["t1", "t2", "t3"];
const build = (figures: Record<string, Record<string, Figures>>) =>
  Object.fromEntries(
    Object.entries(figures).map(([candidate, byTrace]) => [
      candidate,
      Object.fromEntries(traces.map((t) => [t, report(t, byTrace[t])])),
    ]),
  );
const fold = (result: ReturnType<typeof leaveOneTraceOut>, trace: string) => {
  const f = result.folds.find((x: { trace: string }) => x.trace === trace);
  if (!f) throw new Error(`no fold ${trace}`);
  return f;
};

// A meets every target on t1 and t2 and misses 3 on t3; B misses 1 on t1 and t2 and none on t3,
// with the lower slack everywhere (which counts only in a tie of targets met).
const differing = build({
  A: { t1: {}, t2: {}, t3: { miss: 3 } },
  B: { t1: { miss: 1, slackAt1pct: 0.1 }, t2: { miss: 1, slackAt1pct: 0.1 }, t3: { slackAt1pct: 0.1 } },
});

describe("leaveOneTraceOut", () => {
  it("chooses the candidate meeting the most targets on the other traces", () => {
    const result = leaveOneTraceOut(differing);
    const t3 = fold(result, "t3");
    // On t1 and t2: A meets 14 of 14, B 12 of 14.
    expect(t3.ranking.map((s: { candidate: string; met: number }) => [s.candidate, s.met])).toEqual([
      ["A", 14],
      ["B", 12],
    ]);
    expect(t3.chosen).toBe("A");
    // Judged on A's own report of t3, unchanged: 3 targets missed.
    expect(t3.heldOut).toMatchObject({ met: 4, notMet: 3, checks: 7 });
    expect(t3.heldOut.resources[0].figures.coverage).toBe(0.5);
  });

  it("lets the choice differ between held-out traces, and says so", () => {
    const result = leaveOneTraceOut(differing);
    // Holding out t1: on t2 and t3, A meets 7 + 4 and B 6 + 7.
    expect(fold(result, "t1").chosen).toBe("B");
    expect(fold(result, "t1").ranking[0]).toMatchObject({ candidate: "B", met: 13, checks: 14 });
    expect(fold(result, "t2").chosen).toBe("B");
    expect(fold(result, "t3").chosen).toBe("A");
    expect(result.sameChoice).toBe(false);
    expect(result.choice).toBeUndefined();
    // Held out: B on t1 and t2 (6 of 7 each), A on t3 (4 of 7).
    expect(result.heldOut).toMatchObject({ met: 16, notMet: 5, checks: 21 });
    const md = renderLeaveOneOut(result);
    expect(md).toContain("The choice depends on the held-out trace (t1: `B`, t2: `B`, t3: `A`)");
    expect(md).toContain("| t3 | `A` | `A` 14 of 14 (0.30); `B` 12 of 14 (0.10) | 4 of 7 |");
    expect(md).toContain("## Held out: t3 (chosen: `A`)");
    expect(md).toContain("| memory | 50.0 | 5.00 | 5.00 | 25 | 30 | 100 | 0.0 | 97.0 (98) |");
    expect(md).toContain(
      "- memory: **not met**: under-prediction ≤ 1%; **not met**: weighted under-prediction ≤ 2%; **not met**: coverage",
    );
  });

  it("reports one configuration when every held-out trace chooses it", () => {
    const result = leaveOneTraceOut(
      build({
        A: { t1: {}, t2: {}, t3: { miss: 1 } },
        B: { t1: { miss: 2 }, t2: { miss: 2 }, t3: { miss: 2 } },
      }),
    );
    expect(result.folds.map((f: { chosen: string }) => f.chosen)).toEqual(["A", "A", "A"]);
    expect(result.sameChoice).toBe(true);
    expect(result.choice).toBe("A");
    expect(renderLeaveOneOut(result)).toContain(
      "The same candidate, `A`, is chosen with every trace held out: the single configuration is what leave-one-trace-out picks.",
    );
  });

  it("breaks a tie by the lower mean of slack at ≤1% over the best simple predictor's, then by order", () => {
    // Both meet every target. On t1 (best 1) and t2 (best 10): A's ratios 0.45 and 0.2 (mean
    // 0.325; absolute mean 1.225), B's 0.1 and 0.4 (mean 0.25; absolute mean 2.05): B wins on
    // the ratio although A is listed first and has the lower absolute slack.
    const tie = build({
      A: { t1: { slackAt1pct: 0.45, best: 1 }, t2: { slackAt1pct: 2, best: 10 }, t3: {} },
      B: { t1: { slackAt1pct: 0.1, best: 1 }, t2: { slackAt1pct: 4, best: 10 }, t3: {} },
    });
    const t3 = fold(leaveOneTraceOut(tie), "t3");
    expect(t3.chosen).toBe("B");
    expect(t3.ranking.map((s: { met: number }) => s.met)).toEqual([14, 14]);
    expect(t3.ranking[0].slackRatio).toBeCloseTo(0.25, 12);
    expect(t3.ranking[1].slackRatio).toBeCloseTo(0.325, 12);
    // Fewer targets met is not made up for by a lower slack.
    const fewer = build({
      A: { t1: { slackAt1pct: 0.45, best: 1 }, t2: { slackAt1pct: 2, best: 10 }, t3: {} },
      B: { t1: { slackAt1pct: 0.1, best: 1, miss: 1 }, t2: { slackAt1pct: 4, best: 10 }, t3: {} },
    });
    expect(fold(leaveOneTraceOut(fewer), "t3").chosen).toBe("A");
    // A model that never reaches ≤1% loses the tie.
    const never = build({
      A: { t1: { slackAt1pct: Number.NaN }, t2: {}, t3: {} },
      B: { t1: { slackAt1pct: 0.9 }, t2: { slackAt1pct: 0.9 }, t3: {} },
    });
    expect(fold(leaveOneTraceOut(never), "t3").chosen).toBe("B");
    // An exact tie goes to the candidate listed first.
    const same = build({ B: { t1: {}, t2: {}, t3: {} }, A: { t1: {}, t2: {}, t3: {} } });
    expect(leaveOneTraceOut(same).folds.map((f: { chosen: string }) => f.chosen)).toEqual(["B", "B", "B"]);
  });

  it("never lets the held-out trace's own figures influence its choice", () => {
    const before = leaveOneTraceOut(differing);
    for (const heldOut of traces) {
      for (const [a, b] of [
        [{ miss: 5, slackAt1pct: 50 }, {}],
        [{}, { miss: 5, slackAt1pct: 50 }],
        [
          { slackAt1pct: 0.001, best: 1000 },
          { miss: 4, best: 0.001 },
        ],
      ] as Figures[][]) {
        const changed = structuredClone(differing);
        changed.A[heldOut] = report(heldOut, a);
        changed.B[heldOut] = report(heldOut, b);
        const after = fold(leaveOneTraceOut(changed), heldOut);
        expect(after.chosen, `held out ${heldOut}`).toBe(fold(before, heldOut).chosen);
        expect(after.ranking).toEqual(fold(before, heldOut).ranking);
        // ...while its own figures are the changed report's.
        const chosen = after.chosen === "A" ? changed.A : changed.B;
        expect(after.heldOut.resources[0].figures.slackAt1pct).toBe(
          chosen[heldOut].resources.memory.model.slackAt1pct,
        );
      }
    }
  });

  it("accepts Maps, records the candidates' settings, and refuses a missing report", () => {
    const reports = new Map([
      ["defaults", new Map(traces.map((t) => [t, { ...report(t), settings: {} }]))],
      [
        "looser",
        new Map(traces.map((t) => [t, { ...report(t), settings: { conformal: { missRate: 0.01 } } }])),
      ],
    ]);
    const result = leaveOneTraceOut(reports);
    expect(result.candidates).toEqual(["defaults", "looser"]);
    expect(result.traces).toEqual(traces);
    const md = renderLeaveOneOut(result);
    expect(md).toContain("| `defaults` | the defaults |");
    expect(md).toContain('| `looser` | `{"conformal":{"missRate":0.01}}` |');
    reports.get("looser")?.delete("t2");
    expect(() => leaveOneTraceOut(reports)).toThrow("candidate looser has no report of trace t2");
    expect(() => leaveOneTraceOut({})).toThrow(/at least one candidate/);
  });
});
