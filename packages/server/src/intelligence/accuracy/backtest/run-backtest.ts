import { basename } from "node:path";
import type { ResourceName } from "@jobsight/schemas";
import { buildFeatureTable } from "../../features/feature-table.js";
import type { HistoryJob } from "../../history-job.js";
import { ALL_RESOURCES, resourceSpec } from "../../resources.js";
import type { TrainResourceModelOptions } from "../../training/train-resource-model.js";
import { vpaBaseline } from "./baselines.js";
import { computeMetrics, type ScoredJob } from "./metrics.js";
import type { PredictionSink } from "./prediction-lines.js";
import { firstEvaluatedIndex, runModelProtocol } from "./protocol.js";
import type { BacktestReport, ResourceReport } from "./report.js";
import { loadSwfHistory } from "./swf-history-loader.js";

/** Options of {@link runBacktest}. */
export type BacktestOptions = {
  /** Path of the trace. */
  trace: string;
  /**
   * Format of the trace; only the Standard Workload Format is read here.
   * @default "swf"
   */
  format?: "swf";
  /**
   * Share of the jobs (the last by submit time) that are evaluated.
   * @default 0.3
   */
  window?: number;
  /**
   * Resources to evaluate; default every resource the trace has usage for.
   * @default all available
   */
  resources?: ResourceName[];
  /**
   * Simulated seconds between retrainings.
   * @default 604800 (7 days)
   */
  retrainEverySeconds?: number;
  training?: TrainResourceModelOptions;
  /** Receives every scored prediction (completed and censored jobs), e.g. for `--predictions`. */
  onPrediction?: PredictionSink;
  /** Progress: a phase name and a share done (0..1). */
  onProgress?: (phase: string, done: number) => void;
};

/** A resource is evaluated when at least this share of evaluated jobs have its usage. */
const MIN_TARGET_SHARE = 0.05;

/**
 * Runs the EVALUATION.md backtest on a trace: model, VPA-style baseline and the users' requests,
 * on the same evaluated jobs, per resource.
 *
 * @example
 * ```ts
 * const report = await runBacktest({ trace: "LANL-CM5-1994-4.1-cln.swf.gz", onProgress: (p, d) => bar(p, d) });
 * console.log(renderReport(report));
 * ```
 */
export async function runBacktest(options: BacktestOptions): Promise<BacktestReport> {
  const started = performance.now();
  const window = options.window ?? 0.3;
  options.onProgress?.("reading", 0);
  const history = await loadSwfHistory(options.trace);
  const jobs = history.jobs;
  const first = firstEvaluatedIndex(jobs.length, window);
  const report: BacktestReport = {
    trace: basename(options.trace),
    jobs: jobs.length,
    evaluated: jobs.length - first,
    badLines: history.badLineCount,
    window,
    resources: {},
    seconds: 0,
  };
  const resources = options.resources ?? ALL_RESOURCES.filter((r) => hasUsage(jobs.slice(first), r));
  resources.forEach((name, k) => {
    const progress = (done: number) => options.onProgress?.(name, (k + done) / resources.length);
    progress(0);
    report.resources[name] = backtestResource(jobs, first, name, options, progress);
  });
  report.seconds = (performance.now() - started) / 1000;
  options.onProgress?.("done", 1);
  return report;
}

/** Lower bounds of the buckets of a user's completed jobs that coverage is reported by. */
const HISTORY_BUCKETS = [0, 10, 100, 1000];

function historyBucket(userJobs: number): number {
  let k = 0;
  while (k + 1 < HISTORY_BUCKETS.length && userJobs >= HISTORY_BUCKETS[k + 1]) k++;
  return k;
}

function hasUsage(jobs: HistoryJob[], name: ResourceName): boolean {
  const spec = resourceSpec(name);
  let n = 0;
  for (const j of jobs) if (j.outcome === "completed" && spec.target(j) !== undefined) n++;
  return n >= Math.max(100, MIN_TARGET_SHARE * jobs.length);
}

function backtestResource(
  jobs: HistoryJob[],
  first: number,
  name: ResourceName,
  options: BacktestOptions,
  progress: (done: number) => void,
): ResourceReport {
  const spec = resourceSpec(name);
  const t0 = performance.now();
  const table = buildFeatureTable(jobs, spec);
  const vpa = vpaBaseline(jobs, spec);
  const protocol = runModelProtocol(table, {
    window: options.window,
    retrainEverySeconds: options.retrainEverySeconds,
    training: options.training,
    onProgress: (done, total) => progress((0.1 + (0.9 * done) / total) * 1),
  });
  const cap = protocol.lastModel?.calibration.enforcedLimit ?? false;
  const model: ScoredJob[] = [];
  const base: ScoredJob[] = [];
  const capped: ScoredJob[] = [];
  const request: ScoredJob[] = [];
  const censoredMisses = { recommended: 0, missed: 0 };
  const abstentions: Record<string, number> = {};
  const byHistory = HISTORY_BUCKETS.map((fromJobs) => ({ fromJobs, jobs: 0, recommended: 0 }));
  let censored = 0;
  for (let i = first; i < jobs.length; i++) {
    const actual = spec.target(jobs[i]);
    if (actual === undefined) continue;
    const p = protocol.predictions[i - first];
    const req = spec.request(jobs[i]);
    const limit = cap ? req : undefined;
    options.onPrediction?.({
      job: jobs[i].id,
      resource: name,
      status: p.status === "ok" ? "recommended" : "insufficient_evidence",
      value: p.status === "ok" ? p.value : null,
      low: p.status === "ok" ? p.low : null,
      high: p.status === "ok" ? p.high : null,
      confidence: p.status === "ok" ? p.confidence : null,
      actual,
      censored: jobs[i].outcome !== "completed",
      request: req ?? null,
      modelVersion: `bt-${protocol.trainingOf[i - first]}`,
    });
    if (jobs[i].outcome !== "completed") {
      censored++;
      if (p.status === "ok") {
        censoredMisses.recommended++;
        if (p.value < actual) censoredMisses.missed++;
      }
      continue;
    }
    const h = byHistory[historyBucket(table.userJobs[i])];
    h.jobs++;
    if (p.status === "ok") {
      h.recommended++;
      model.push({ actual, value: p.value, low: p.low, high: p.high, confidence: p.confidence, cap: limit });
    } else {
      model.push({ actual });
      abstentions[p.reasonCode] = (abstentions[p.reasonCode] ?? 0) + 1;
    }
    const v = Number.isNaN(vpa[i]) ? undefined : vpa[i];
    base.push({ actual, value: v });
    capped.push({
      actual,
      value: v === undefined ? v : req !== undefined ? Math.min(v, req) : v,
      cap: limit,
    });
    request.push({ actual, value: req, cap: limit });
  }
  const nominal = protocol.lastModel?.calibration.nominalLevel;
  return {
    evaluated: model.length,
    censored,
    capAtRequest: cap,
    trainings: protocol.trainings,
    trainSeconds: protocol.trainSeconds,
    seconds: (performance.now() - t0) / 1000,
    model: {
      ...computeMetrics(model, nominal),
      abstentions,
      censoredUnderPredictionRate:
        censoredMisses.recommended > 0 ? censoredMisses.missed / censoredMisses.recommended : 0,
      // Every bucket, an empty one too (coverage NaN), so each bucket's span reads off the next.
      coverageByHistory: byHistory.map(({ fromJobs, jobs, recommended }) => ({
        fromJobs,
        jobs,
        coverage: recommended / jobs,
      })),
    },
    vpa: computeMetrics(base),
    ...(cap ? { vpaCapped: computeMetrics(capped) } : {}),
    request: computeMetrics(request),
  };
}
