import type { EvidenceRef, UsageSample } from "@jobsight/schemas";
import { metricEvidence } from "../../diagnosis/evidence.js";
import type { LiveRule, Verdict } from "./live-rule.js";
import { at, covers, lastMinutes, latestTime, minutesBetween } from "./live-series.js";
import { growthPerMs } from "./memory-near-limit.js";

const MINUTE_MS = 60_000;
/** The fewest progress readings a rate is fitted to. */
const MIN_FIT_READINGS = 3;

type Reading = { t: number; done: number; total: number; unit?: string; sample: UsageSample };

/** The job's progress readings, one per instant (nodes reporting the same job-wide count agree or the largest counts). */
function readings(samples: readonly UsageSample[]): Reading[] {
  const byTime = new Map<number, Reading>();
  for (const s of samples) {
    if (!s.progress) continue;
    const t = at(s);
    const seen = byTime.get(t);
    if (!seen || s.progress.done > seen.done)
      byTime.set(t, { t, done: s.progress.done, total: s.progress.total, unit: s.progress.unit, sample: s });
  }
  return [...byTime.values()].sort((a, b) => a.t - b.t);
}

const hm = (minutes: number) =>
  minutes >= 90
    ? `${Math.floor(minutes / 60)} h ${Math.round(minutes % 60)} min`
    : `${Math.round(minutes)} min`;

/**
 * `walltime-overrun`: at the rate of progress the job itself reports (the samples' `progress`:
 * units done out of a total, e.g. training steps), fitted as a least-squares line over the last
 * `walltimeFitMinutes`, the job ends more than `walltimeMarginMinutes` after its walltime (its
 * start plus the requested limit): the scheduler will kill it first. Progress is measurable only
 * where the job reports it, so without `progress` readings, a start time or a walltime the rule
 * is silent (`unknown`): elapsed time alone says nothing of how far a job has got. Cites the
 * progress readings fitted and the walltime.
 *
 * @example
 * ```ts
 * walltimeOverrun.evaluate(job, DEFAULT_ALERT_THRESHOLDS); // { holds: true, projectedAt: "…", … }
 * ```
 */
export const walltimeOverrun: LiveRule = {
  rule: "walltime-overrun",
  evaluate(job, t): Verdict {
    const all = readings(job.samples);
    if (all.length === 0)
      return { holds: "unknown", reason: "progress was not measurable: the job reports no progress" };
    if (job.startedAt === undefined || job.walltimeSeconds === undefined)
      return { holds: "unknown", reason: "no start time or walltime on the job's record" };
    const latest = all[all.length - 1];
    if (latest.done >= latest.total) return { holds: false };
    const samples = all.map((r) => r.sample);
    if (!covers(samples, latestTime(samples), t.walltimeFitMinutes))
      return { holds: "unknown", reason: `progress readings span less than ${t.walltimeFitMinutes} min` };
    const fitted = lastMinutes(samples, latest.t, t.walltimeFitMinutes);
    const points = all.filter((r) => fitted.includes(r.sample));
    if (points.length < MIN_FIT_READINGS)
      return { holds: "unknown", reason: `fewer than ${MIN_FIT_READINGS} progress readings to fit` };
    const perMs = growthPerMs(points.map((p) => ({ t: p.t, v: p.done })));
    // No progress over the window projects no end at all: that is a stall, not an overrun.
    if (!(perMs > 0))
      return { holds: "unknown", reason: `no progress over the last ${t.walltimeFitMinutes} min` };
    const endMs = latest.t + (latest.total - latest.done) / perMs;
    const deadlineMs = Date.parse(job.startedAt) + job.walltimeSeconds * 1000;
    if (endMs <= deadlineMs + t.walltimeMarginMinutes * MINUTE_MS) return { holds: false };
    const unit = latest.unit ?? "unit";
    // The collector counts fractions and percentages in "%", which takes no plural and is UCUM already.
    const units = unit === "%" ? "%" : `${unit}s`;
    const perHour = perMs * 3_600_000;
    const rate = perHour >= 10 ? Math.round(perHour) : Math.round(perHour * 100) / 100;
    const evidence: EvidenceRef[] = [];
    const progress = metricEvidence(
      latest.sample.node,
      "progress.done",
      points.map((p) => p.sample),
      `progress.done rose to ${latest.done} of ${latest.total} ${units} over the last ${t.walltimeFitMinutes} min: ${rate} ${units}/h`,
    );
    if (progress)
      evidence.push({
        ...progress,
        source: "job",
        field: "progress.done",
        unit: unit === "%" ? "%" : `{${unit.slice(0, 30)}}`,
      });
    evidence.push({
      kind: "scheduler",
      source: "job record",
      metric: "spec.requested.walltimeSeconds",
      values: [job.walltimeSeconds],
      unit: "s",
      window: { start: job.startedAt, end: new Date(deadlineMs).toISOString() },
      text: `Walltime ${hm(job.walltimeSeconds / 60)} from the start at ${job.startedAt}: the scheduler ends the job at ${new Date(deadlineMs).toISOString()}`,
    });
    const over = minutesBetween(deadlineMs, endMs);
    return {
      holds: true,
      severity: "critical",
      message: `At ${rate} ${units}/h the job needs until ${new Date(endMs).toISOString()} for the remaining ${latest.total - latest.done} of ${latest.total} ${units}: ${hm(over)} past its walltime, which ends it first.`,
      evidence,
      projectedAt: new Date(endMs).toISOString(),
    };
  },
};
