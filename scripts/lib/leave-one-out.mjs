// Leave-one-trace-out selection of the model's settings, on `jobsight backtest --json` reports
// already computed: for each trace in turn, the candidate configuration that does best on the other
// traces is chosen, and the held-out trace is judged on that candidate's report, unchanged. Pure:
// no files, no processes (scripts/leave-one-trace-out.mjs runs the backtests).
//
//   const result = leaveOneTraceOut({ defaults: { LANL: report, SDSC: report }, looser: { ... } });
//   writeFileSync("docs/leave-one-trace-out.md", renderLeaveOneOut(result));
import { bestSimpleSlack, calibrationGap, checkTargets, pct, renderChecks } from "./accuracy-targets.mjs";

const entries = (m) => (m instanceof Map ? [...m.entries()] : Object.entries(m));

/**
 * Every target of every resource of one report, with the model's slack at ≤1% over the best
 * simple predictor's per resource (Infinity when the model never reaches ≤1%; left out when no
 * simple predictor does).
 */
function judge(report) {
  const resources = [];
  for (const [resource, r] of Object.entries(report.resources ?? {})) {
    if (!r) continue;
    const best = bestSimpleSlack(r);
    const m = r.model;
    const slackAt1pct = Number.isFinite(m.slackAt1pct) ? m.slackAt1pct : Number.POSITIVE_INFINITY;
    resources.push({
      resource,
      checks: checkTargets(m, best),
      slackRatio: Number.isFinite(best) && best > 0 ? slackAt1pct / best : undefined,
      figures: {
        coverage: m.coverage,
        under: m.underPredictionRate,
        weightedUnder: m.weightedUnderPredictionRate,
        slack: m.slack,
        slackAt1pct: m.slackAt1pct,
        bestSimpleSlackAt1pct: Number.isFinite(best) ? best : undefined,
        calibrationGap: calibrationGap(m),
        rangeCoverage: m.rangeCoverage,
        nominalRangeCoverage: m.nominalRangeCoverage,
      },
    });
  }
  return resources;
}

/** Met, not met and not measured among checks. */
function tally(checks) {
  return {
    met: checks.filter((c) => c.met === true).length,
    notMet: checks.filter((c) => c.met === false).length,
    notMeasured: checks.filter((c) => c.met === undefined).length,
    checks: checks.length,
  };
}

const mean = (xs) => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * Leave-one-trace-out over candidate configurations. `reports` maps each candidate's name to its
 * reports by trace name (a Map or a plain object, in the candidates' order of preference); every
 * candidate needs a report of every trace.
 *
 * For each held-out trace T, each candidate is scored on the other traces only: the number of
 * (trace, resource, target) checks it meets; a tie goes to the lower mean, over those (trace,
 * resource), of the model's slack at ≤1% divided by the best simple predictor's, then to the
 * candidate listed first. The best candidate is T's choice, and T's own checks and figures are
 * those of that candidate's report of T. `sameChoice` says whether every held-out trace chose
 * the same candidate (then `choice` names it).
 */
export function leaveOneTraceOut(reports) {
  const candidates = entries(reports).map(([name, byTrace]) => ({
    name,
    byTrace: new Map(entries(byTrace)),
  }));
  if (candidates.length === 0) throw new Error("leave-one-trace-out needs at least one candidate");
  const traces = [...candidates[0].byTrace.keys()];
  if (traces.length === 0) throw new Error("leave-one-trace-out needs at least one trace");
  for (const c of candidates) {
    for (const t of traces) {
      if (!c.byTrace.has(t)) throw new Error(`candidate ${c.name} has no report of trace ${t}`);
    }
    for (const t of c.byTrace.keys()) {
      if (!traces.includes(t)) throw new Error(`candidate ${candidates[0].name} has no report of trace ${t}`);
    }
  }
  // Judged once: a fold only sums the judgements of its other traces.
  const judged = new Map(
    candidates.map((c) => [c.name, new Map(traces.map((t) => [t, judge(c.byTrace.get(t))]))]),
  );

  const folds = traces.map((heldOut) => {
    const others = traces.filter((t) => t !== heldOut);
    const ranking = candidates.map((c, order) => {
      const resources = others.flatMap((t) => judged.get(c.name).get(t));
      const ratios = resources.map((r) => r.slackRatio).filter((x) => x !== undefined);
      const meanRatio = mean(ratios);
      return {
        candidate: c.name,
        order,
        ...tally(resources.flatMap((r) => r.checks)),
        slackRatio: Number.isNaN(meanRatio) ? undefined : meanRatio,
      };
    });
    const tieKey = (s) => (s.slackRatio === undefined ? Number.POSITIVE_INFINITY : s.slackRatio);
    ranking.sort((a, b) => {
      if (a.met !== b.met) return b.met - a.met;
      const ka = tieKey(a);
      const kb = tieKey(b);
      if (ka !== kb) return ka < kb ? -1 : 1;
      return a.order - b.order;
    });
    const chosen = ranking[0].candidate;
    const resources = judged.get(chosen).get(heldOut);
    return {
      trace: heldOut,
      chosen,
      ranking: ranking.map(({ order, ...score }) => score),
      heldOut: { ...tally(resources.flatMap((r) => r.checks)), resources },
    };
  });

  const chosen = new Set(folds.map((f) => f.chosen));
  const settings = Object.fromEntries(candidates.map((c) => [c.name, c.byTrace.get(traces[0]).settings]));
  return {
    candidates: candidates.map((c) => c.name),
    traces,
    settings,
    folds,
    sameChoice: chosen.size === 1,
    choice: chosen.size === 1 ? folds[0].chosen : undefined,
    heldOut: tally(folds.flatMap((f) => f.heldOut.resources.flatMap((r) => r.checks))),
  };
}

const code = (s) => `\`${s}\``;
const ratio = (x) => (x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(2));
// A report without settings ran with the defaults (see BacktestReport.settings).
const describeSettings = (s) =>
  s === undefined || Object.keys(s).length === 0 ? "the defaults" : code(JSON.stringify(s));

/**
 * The result of {@link leaveOneTraceOut} as a Markdown document: the verdict, the candidates, the
 * choice per held-out trace with every candidate's score on the others, and each held-out trace's
 * own figures and targets.
 */
export function renderLeaveOneOut(result) {
  const lines = [
    "# Leave-one-trace-out check",
    "",
    "Generated by `node scripts/leave-one-trace-out.mjs` (after `pnpm build`) from",
    "`jobsight backtest --json --settings FILE` of every candidate configuration on every Standard",
    "Workload Format trace. Do not edit by hand.",
    "",
    "Each trace in turn is held out. Every candidate is scored on the other traces only: the number of",
    "targets of the evaluation (those of docs/accuracy.md) it meets over their traces and resources; a",
    "tie goes to the lower mean of the model's slack at ≤1% over the best simple predictor's, then to",
    "the candidate listed first. The chosen candidate's report of the held-out trace, unchanged, is",
    "then judged against the same targets; the held-out trace's own figures never enter its choice.",
    "Percentages.",
    "",
    "## Verdict",
    "",
  ];
  if (result.sameChoice) {
    lines.push(
      `- The same candidate, ${code(result.choice)}, is chosen with every trace held out: the single configuration is what leave-one-trace-out picks.`,
    );
  } else {
    const picks = result.folds.map((f) => `${f.trace}: ${code(f.chosen)}`).join(", ");
    lines.push(
      `- The choice depends on the held-out trace (${picks}): no single configuration is what leave-one-trace-out picks.`,
    );
  }
  const h = result.heldOut;
  const missed = result.folds.flatMap((f) =>
    f.heldOut.resources.flatMap((r) =>
      r.checks.filter((c) => c.met === false).map((c) => `${f.trace} ${r.resource}: ${c.target}`),
    ),
  );
  lines.push(
    `- Held out, the chosen candidates meet ${h.met} of ${h.checks} targets` +
      (h.notMeasured > 0 ? ` (${h.notMeasured} not measured)` : "") +
      (missed.length === 0 ? ": every measured target is met." : `; not met: ${missed.join("; ")}.`),
    "",
    "## Candidates",
    "",
    "| candidate | settings |",
    "| --- | --- |",
    ...result.candidates.map((c) => `| ${code(c)} | ${describeSettings(result.settings[c])} |`),
    "",
    "## Choice per held-out trace",
    "",
    "Scores on the other traces: targets met of those checked, and the mean slack at ≤1% over the best simple predictor's.",
    "",
    "| held out | chosen | scores on the other traces, best first | held-out targets met |",
    "| --- | --- | --- | --- |",
  );
  for (const f of result.folds) {
    const scores = f.ranking
      .map((s) => `${code(s.candidate)} ${s.met} of ${s.checks} (${ratio(s.slackRatio)})`)
      .join("; ");
    lines.push(`| ${f.trace} | ${code(f.chosen)} | ${scores} | ${f.heldOut.met} of ${f.heldOut.checks} |`);
  }
  for (const f of result.folds) {
    lines.push(
      "",
      `## Held out: ${f.trace} (chosen: ${code(f.chosen)})`,
      "",
      "| resource | coverage | under-prediction | weighted under | slack | slack at ≤1% | best simple slack at ≤1% | calibration gap (points) | range coverage (nominal) |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const r of f.heldOut.resources) {
      const x = r.figures;
      const range =
        x.rangeCoverage === undefined || x.rangeCoverage === null
          ? "–"
          : `${pct(x.rangeCoverage)} (${pct(x.nominalRangeCoverage, 0)})`;
      lines.push(
        `| ${r.resource} | ${pct(x.coverage)} | ${pct(x.under, 2)} | ${pct(x.weightedUnder, 2)} | ${pct(x.slack, 0)} | ${pct(x.slackAt1pct, 0)} | ${pct(x.bestSimpleSlackAt1pct, 0)} | ${pct(x.calibrationGap)} | ${range} |`,
      );
    }
    lines.push("");
    for (const r of f.heldOut.resources) lines.push(`- ${r.resource}: ${renderChecks(r.checks)}.`);
  }
  return `${lines.join("\n")}\n`;
}
