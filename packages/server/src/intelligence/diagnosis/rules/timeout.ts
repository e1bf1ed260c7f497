import type { EvidenceRef, Unseen } from "@jobsight/schemas";
import type { RuleContext } from "../context.js";
import { historyEvidence, metricEvidence, present, schedulerEvidence } from "../evidence.js";
import { formatDuration, formatShare, trim } from "../explain/format.js";
import { runTimeEvidence, walltimeLimit } from "../run-time.js";
import { cpuRates, meanGpuUtilisation, medianInterval, quantileOf } from "../series.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

/**
 * Timeout: the job hit its walltime limit. Says whether the application's past runs usually need
 * longer than the limit (limit too short) or much less (this run was unusually slow), and whether
 * the job was idle at the end (hung) when the samples show it.
 */
export const timeoutRule: DiagnosisRule = {
  name: "timeout",
  evaluate(ctx) {
    if (ctx.state !== "TIMEOUT") return NOTHING;
    const limit = walltimeLimit(ctx);
    const sentences = [
      `The job ran into its walltime limit${limit ? ` of ${formatDuration(limit.seconds)}` : ""} and was stopped by the scheduler.`,
    ];
    const evidence: EvidenceRef[] = present(
      schedulerEvidence(ctx, "outcome.state", "The scheduler recorded the job as TIMEOUT."),
      limit
        ? schedulerEvidence(ctx, limit.field, `Its walltime limit was ${formatDuration(limit.seconds)}.`)
        : undefined,
      ...runTimeEvidence(ctx),
    );
    const unseen: Unseen[] = [];
    const h = ctx.input.history;
    const runs = h?.runTimesSeconds.filter((v) => Number.isFinite(v) && v >= 0) ?? [];
    if (!h || runs.length === 0) {
      unseen.push({
        source: "run-time-history",
        reason:
          "No run-time history of this application: whether its runs usually fit in the limit cannot be told.",
      });
    } else {
      const med = quantileOf(runs, 0.5);
      const p90 = quantileOf(runs, 0.9);
      const min = quantileOf(runs, 0);
      const max = quantileOf(runs, 1);
      const over = limit ? runs.filter((v) => v > limit.seconds) : [];
      const stats = `${runs.length} past runs of ${h.group} took a median ${formatDuration(med)} (from ${formatDuration(min)} to ${formatDuration(max)}, 90% within ${formatDuration(p90)})`;
      if (limit && over.length / runs.length >= ctx.thresholds.historyExceededShare) {
        sentences.push(
          `The limit is short for this application: ${stats}, and ${over.length} of them (${formatShare(over.length / runs.length)}) took longer than this job's limit.`,
        );
      } else if (limit && p90 < ctx.thresholds.historyUnusualShare * limit.seconds) {
        sentences.push(
          `This run was unusually long: ${stats}, well inside the limit; the job may have hung or slowed down.`,
        );
      } else {
        sentences.push(`For comparison, ${stats}.`);
      }
      evidence.push(
        historyEvidence(
          h,
          [...new Set([min, med, p90, max])],
          `Run times (s) of past runs: minimum, median, 90th percentile, maximum of ${runs.length}`,
        ),
      );
    }
    const idle = idleTail(ctx);
    if (idle) {
      sentences.push(idle.sentence);
      evidence.push(...idle.evidence);
    }
    return {
      findings: [
        {
          kind: "timeout",
          severity: "error",
          claim: sentences.join(" ").slice(0, 2048),
          confidence: 0.95,
          evidence,
        },
      ],
      unseen,
    };
  },
};

/** The job's last stretch, when it used almost no CPU (and no GPU, where GPUs were watched). */
function idleTail(ctx: RuleContext): { sentence: string; evidence: EvidenceRef[] } | undefined {
  const t = ctx.thresholds;
  const evidence: EvidenceRef[] = [];
  let seconds = Number.POSITIVE_INFINITY;
  let cores = 0;
  let gpusIdle = ctx.gpuMetricNodes.size > 0;
  for (const [node, samples] of ctx.series) {
    const withCpu = samples.filter((s) => s.cpu !== undefined);
    if (withCpu.length < 5) return undefined;
    const tail = withCpu.slice(Math.floor(withCpu.length * (1 - t.hangTailShare)));
    if (tail.length < 2) return undefined;
    // "Its last minutes" needs samples up to the end: a node that went silent earlier says nothing of them.
    const end = ctx.record.endedAt;
    const bar = t.gapIntervalMultiple * (medianInterval(withCpu) ?? 0);
    if (end && (Date.parse(end) - Date.parse(tail[tail.length - 1].time)) / 1000 > bar) return undefined;
    const rates = cpuRates(tail);
    const used = tail[tail.length - 1].cpu!.usageSeconds - tail[0].cpu!.usageSeconds;
    const span = rates.reduce((s, r) => s + (Date.parse(r.to.time) - Date.parse(r.from.time)) / 1000, 0);
    if (span <= 0 || used / span >= t.hangMaxCores) return undefined;
    if (tail.some((s) => (meanGpuUtilisation(s) ?? 0) >= t.gpuIdlePercent)) return undefined;
    // Idle GPUs are claimed only from readings in the tail itself.
    if (ctx.gpuMetricNodes.has(node) && tail.some((s) => meanGpuUtilisation(s) === undefined))
      gpusIdle = false;
    seconds = Math.min(seconds, span);
    cores = Math.max(cores, used / span);
    evidence.push(
      ...present(
        metricEvidence(
          node,
          "cpu.usageSeconds",
          [tail[0], tail[tail.length - 1]],
          `CPU time on ${node} barely moved from ${tail[0].time} to ${tail[tail.length - 1].time}.`,
        ),
      ),
    );
  }
  if (evidence.length === 0) return undefined;
  return {
    sentence: `In its last ${formatDuration(seconds)} the job used almost no CPU (${cores * 100 < 0.05 ? "under 0.1" : trim(cores * 100)}% of one core)${gpusIdle ? " and its GPUs were idle" : ""}: it looks hung or waiting, not slow.`,
    evidence,
  };
}
