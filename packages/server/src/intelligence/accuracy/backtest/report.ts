import type { ResourceName } from "@jobsight/schemas";
import type { BacktestSettings } from "./backtest-settings.js";
import type { PredictorMetrics } from "./metrics.js";

/** The model's metrics plus what only the model has. */
export type ModelMetrics = PredictorMetrics & {
  /** Abstentions by reason code. */
  abstentions: Record<string, number>;
  /** Share of recommended killed jobs whose known lower bound already exceeded the value. */
  censoredUnderPredictionRate: number;
  /**
   * Coverage by how many of its user's jobs had completed when a job was submitted (`fromJobs`:
   * 0, 10, 100, 1000 and more; every bucket, NaN coverage where it has no job): the model should
   * abstain less, not more, as evidence accumulates.
   */
  coverageByHistory: HistoryCoverage[];
};

/** Coverage of the scored jobs whose user had at least `fromJobs` completed jobs (and fewer than the next bucket's). */
export type HistoryCoverage = { fromJobs: number; jobs: number; coverage: number };

/** Backtest of one resource: model and references on the same completed jobs. */
export type ResourceReport = {
  /** Completed evaluated jobs with a known usage (the scored jobs). */
  evaluated: number;
  /** Killed evaluated jobs (lower bounds; not scored as exact). */
  censored: number;
  /** The model detected an enforced limit and caps at the request. */
  capAtRequest: boolean;
  trainings: number;
  trainSeconds: number;
  seconds: number;
  model: ModelMetrics;
  vpa: PredictorMetrics;
  /** The VPA-style baseline capped at the request, where the limit is enforced. */
  vpaCapped?: PredictorMetrics;
  request: PredictorMetrics;
};

/** The JSON document of `jobsight backtest --json`. */
export type BacktestReport = {
  trace: string;
  jobs: number;
  evaluated: number;
  badLines: number;
  window: number;
  resources: Partial<Record<ResourceName, ResourceReport>>;
  seconds: number;
  /** The model's settings the backtest ran with (`--settings FILE`); absent: the defaults. */
  settings?: BacktestSettings;
};

const pct = (v: number | undefined, digits = 1) =>
  v === undefined || Number.isNaN(v) ? "-" : (100 * v).toFixed(digits);

/**
 * Renders a report as a human-readable table, one block per resource.
 *
 * @example
 * ```ts
 * process.stdout.write(renderReport(report));
 * ```
 */
export function renderReport(report: BacktestReport): string {
  const lines: string[] = [];
  lines.push(
    `${report.trace}: ${report.jobs} jobs, last ${pct(report.window, 0)}% evaluated (${report.evaluated}), ` +
      `${report.badLines} bad lines, ${report.seconds.toFixed(1)} s`,
  );
  const header = [
    "predictor",
    "coverage%",
    "under%",
    "w.under%",
    "slack%",
    "slack@1%",
    "factor",
    "range%",
    "nominal%",
  ];
  for (const [name, r] of Object.entries(report.resources)) {
    if (!r) continue;
    lines.push("");
    lines.push(
      `${name}: ${r.evaluated} scored, ${r.censored} censored, cap at request: ${r.capAtRequest ? "yes" : "no"}, ` +
        `${r.trainings} trainings (${r.trainSeconds.toFixed(1)} s), ${r.seconds.toFixed(1)} s`,
    );
    const rows: string[][] = [header];
    const add = (label: string, m: PredictorMetrics) =>
      rows.push([
        label,
        pct(m.coverage),
        pct(m.underPredictionRate, 2),
        pct(m.weightedUnderPredictionRate, 2),
        pct(m.slack, 0),
        pct(m.slackAt1pct, 0),
        Number.isNaN(m.safetyFactor) ? "-" : `x${m.safetyFactor.toFixed(2)}`,
        pct(m.rangeCoverage),
        pct(m.nominalRangeCoverage, 0),
      ]);
    add("model", r.model);
    add("vpa", r.vpa);
    if (r.vpaCapped) add("vpa capped", r.vpaCapped);
    add("request", r.request);
    const widths = header.map((_, c) => Math.max(...rows.map((row) => row[c].length)));
    for (const row of rows)
      lines.push(
        row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  "),
      );
    const abst = Object.entries(r.model.abstentions)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
    lines.push(
      `abstained: ${abst || "none"}; censored jobs under-predicted: ${pct(r.model.censoredUnderPredictionRate, 2)}%; ` +
        `value inside its own range: ${pct(r.model.valueInRange)}%`,
    );
    if (r.model.calibration) {
      lines.push(
        `calibration: ${r.model.calibration
          .map((b) => `${pct(b.confidence)}% -> ${pct(b.observed)}% (${b.jobs})`)
          .join(" | ")}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
