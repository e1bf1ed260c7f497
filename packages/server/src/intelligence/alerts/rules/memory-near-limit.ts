import type { EvidenceRef, UsageSample } from "@jobsight/schemas";
import { metricEvidence } from "../../diagnosis/evidence.js";
import type { LiveRule, Verdict } from "./live-rule.js";
import { at, cgroupSeries, lastMinutes, minutesBetween } from "./live-series.js";

const MINUTE_MS = 60_000;
/** The fewest samples a growth rate is fitted to. */
const MIN_FIT_SAMPLES = 3;

/** A least-squares line through (time, memory): the growth rate in bytes per millisecond. */
export function growthPerMs(points: readonly { t: number; v: number }[]): number {
  const n = points.length;
  const meanT = points.reduce((s, p) => s + p.t, 0) / n;
  const meanV = points.reduce((s, p) => s + p.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - meanT) * (p.v - meanV);
    den += (p.t - meanT) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

type Projection = {
  node: string;
  step: string;
  samples: UsageSample[];
  current: number;
  limit: number;
  perMinute: number;
  /** Milliseconds from the latest sample to the limit. */
  toLimitMs: number;
  latest: number;
};

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;
const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

/**
 * `memory-near-limit`: a cgroup of the running job holds at least `memoryPercentOfLimit` of its
 * memory limit (memory.max) and is rising so that, at the rate of a least-squares line over the
 * last `memoryFitMinutes`, it reaches the limit within `memoryMinutesToLimit`: likely killed for
 * memory within minutes. The alert gives the projected time; it cites the readings fitted and the
 * limit.
 *
 * @example
 * ```ts
 * memoryNearLimit.evaluate(job, DEFAULT_ALERT_THRESHOLDS); // { holds: true, projectedAt: "…", … }
 * ```
 */
export const memoryNearLimit: LiveRule = {
  rule: "memory-near-limit",
  evaluate(job, t): Verdict {
    const projections: Projection[] = [];
    let judged = false;
    for (const series of cgroupSeries(job.samples)) {
      const withLimit = series.samples.filter(
        (s) =>
          s.memory?.limitBytes !== undefined &&
          s.memory.limitBytes > 0 &&
          s.memory.currentBytes !== undefined,
      );
      if (withLimit.length === 0) continue;
      const last = withLimit[withLimit.length - 1];
      const latest = at(last);
      const current = last.memory!.currentBytes;
      const limit = last.memory!.limitBytes!;
      const fitted = lastMinutes(withLimit, latest, t.memoryFitMinutes);
      if (current < (limit * t.memoryPercentOfLimit) / 100) {
        judged = true;
        continue;
      }
      if (fitted.length < MIN_FIT_SAMPLES) continue;
      judged = true;
      const rate = growthPerMs(fitted.map((s) => ({ t: at(s), v: s.memory!.currentBytes })));
      // Not rising: memory that holds still near its limit (page cache does) is not about to fail.
      if (rate <= 0) continue;
      const toLimitMs = Math.max(0, (limit - current) / rate);
      if (toLimitMs > t.memoryMinutesToLimit * MINUTE_MS) continue;
      projections.push({
        ...series,
        samples: fitted,
        current,
        limit,
        perMinute: rate * MINUTE_MS,
        toLimitMs,
        latest,
      });
    }
    if (projections.length === 0)
      return judged
        ? { holds: false }
        : { holds: "unknown", reason: "no memory limit, or too few samples near it" };
    const p = projections.sort((a, b) => a.toLimitMs - b.toLimitMs)[0];
    const projectedAt = new Date(p.latest + Math.round(p.toLimitMs)).toISOString();
    const where = p.step ? `${p.node} (step ${p.step})` : p.node;
    const share = Math.round((p.current / p.limit) * 100);
    const minutes = minutesBetween(p.latest, p.latest + p.toLimitMs);
    const fittedMinutes = minutesBetween(at(p.samples[0]), p.latest);
    const evidence: EvidenceRef[] = [];
    const readings = metricEvidence(
      p.node,
      "memory.currentBytes",
      p.samples,
      `memory in use on ${where} rose to ${gib(p.current)} (${share}% of its limit), ${mib(p.perMinute)}/min over the last ${fittedMinutes} min`,
    );
    const limit = metricEvidence(
      p.node,
      "memory.limitBytes",
      p.samples.slice(-1),
      `memory limit on ${where}: ${gib(p.limit)}`,
    );
    for (const ref of [readings, limit]) if (ref) evidence.push(p.step ? { ...ref, step: p.step } : ref);
    return {
      holds: true,
      severity: "critical",
      message:
        p.toLimitMs === 0
          ? `Memory on ${where} is at its ${gib(p.limit)} limit: the job is likely to be killed for memory now.`
          : `Memory on ${where} is at ${share}% of its ${gib(p.limit)} limit and rising ${mib(p.perMinute)}/min: the limit in about ${minutes} min (${projectedAt}); likely killed for memory.`,
      evidence,
      projectedAt,
    };
  },
};
