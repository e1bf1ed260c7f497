import type { EvidenceRef } from "@jobsight/schemas";
import { metricEvidence } from "../../diagnosis/evidence.js";
import type { LiveRule, Verdict } from "./live-rule.js";
import { at, type CgroupSeries, cgroupSeries, covers, lastMinutes, latestTime } from "./live-series.js";

/** The evidence of at most this many cgroups is cited (the schema allows 64 pieces). */
const MAX_CGROUPS_CITED = 32;

type Use = { series: CgroupSeries; first: number; last: number; seconds: number; spanMs: number };

/**
 * The cgroups whose CPU time adds up to the job's on each node: the whole job's when it is
 * sampled, otherwise every step's (steps are disjoint cgroups below the job's).
 */
function countedSeries(all: readonly CgroupSeries[]): CgroupSeries[] {
  const wholeJob = new Set(all.filter((s) => s.step === "").map((s) => s.node));
  return all.filter((s) => s.step === "" || !wholeJob.has(s.node));
}

/** The cores the job reserved: its record's request, else the sum of its nodes' cpu.max. */
function reservedCores(requested: number | undefined, series: readonly CgroupSeries[]): number | undefined {
  if (requested !== undefined && requested > 0) return requested;
  let sum = 0;
  for (const s of series) {
    const limit = s.samples.at(-1)?.cpu?.limitCores;
    if (limit === undefined) return undefined;
    sum += limit;
  }
  return sum > 0 ? sum : undefined;
}

/**
 * `cores-idle`: over the last `coresIdleMinutes`, the running job used less than
 * `coresIdlePercent` of the cores it reserved (CPU time from cpu.stat usage_usec, summed over its
 * nodes, per second of the window). Reserved cores are the job record's request, else the cgroups'
 * cpu.max. Not judged until the samples reach back that far. Cites each cgroup's CPU time and the
 * request.
 *
 * @example
 * ```ts
 * coresIdle.evaluate(job, DEFAULT_ALERT_THRESHOLDS); // { holds: false }
 * ```
 */
export const coresIdle: LiveRule = {
  rule: "cores-idle",
  evaluate(job, t): Verdict {
    const withCpu = job.samples.filter((s) => s.cpu?.usageSeconds !== undefined);
    if (withCpu.length === 0) return { holds: "unknown", reason: "no CPU readings" };
    const end = latestTime(withCpu);
    if (!covers(withCpu, end, t.coresIdleMinutes))
      return { holds: "unknown", reason: `CPU readings span less than ${t.coresIdleMinutes} min` };
    const series = countedSeries(cgroupSeries(lastMinutes(withCpu, end, t.coresIdleMinutes)));
    const cores = reservedCores(job.requestedCores, series);
    if (cores === undefined) return { holds: "unknown", reason: "reserved cores unknown" };
    const uses: Use[] = [];
    for (const s of series) {
      if (s.samples.length < 2) continue;
      const first = s.samples[0].cpu!.usageSeconds;
      const last = s.samples[s.samples.length - 1].cpu!.usageSeconds;
      // A counter that went back belongs to a new cgroup (a restarted step): not judged.
      if (last < first) return { holds: "unknown", reason: `CPU counter of ${s.node} went back` };
      const spanMs = at(s.samples[s.samples.length - 1]) - at(s.samples[0]);
      uses.push({ series: s, first, last, seconds: last - first, spanMs });
    }
    if (uses.length === 0) return { holds: "unknown", reason: "fewer than two CPU readings per cgroup" };
    const used = uses.reduce((sum, u) => sum + (u.spanMs > 0 ? u.seconds / (u.spanMs / 1000) : 0), 0);
    const percent = (used / cores) * 100;
    if (percent >= t.coresIdlePercent) return { holds: false };
    const evidence: EvidenceRef[] = [];
    for (const u of uses.slice(0, MAX_CGROUPS_CITED)) {
      const where = u.series.step ? `${u.series.node} (step ${u.series.step})` : u.series.node;
      const ref = metricEvidence(
        u.series.node,
        "cpu.usageSeconds",
        u.series.samples,
        `CPU time on ${where} rose by ${u.seconds.toFixed(1)} s in ${Math.round(u.spanMs / 60_000)} min`,
      );
      if (ref) evidence.push(u.series.step ? { ...ref, step: u.series.step } : ref);
    }
    if (job.requestedCores !== undefined && job.requestedCores > 0)
      evidence.push({
        kind: "scheduler",
        source: "job-record",
        metric: "spec.requested.cores",
        values: [job.requestedCores],
        unit: "{core}",
        text: `the job reserved ${job.requestedCores} cores`,
      });
    return {
      holds: true,
      severity: "warning",
      message: `The job used ${used.toFixed(2)} of its ${cores} reserved cores (${percent.toFixed(1)}%) over the last ${t.coresIdleMinutes} min, below ${t.coresIdlePercent}%: reserved and idle.`,
      evidence,
    };
  },
};
