import type { EvidenceRef } from "@jobsight/schemas";
import type { OomKilledJob } from "../../../data-plane/queries/oom-history.js";
import { killsOfShape } from "./job-shape.js";
import type { LiveRule, Verdict } from "./live-rule.js";
import { latestTime } from "./live-series.js";

/** The evidence of at most this many earlier kills is cited. */
const MAX_KILLS_CITED = 16;

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

/** One earlier kill as evidence: the job record's final state and, when known, its peak against the request. */
export function killEvidence(k: OomKilledJob): EvidenceRef {
  const peak =
    k.peakMemoryBytes !== undefined && k.requestedMemoryBytes !== undefined
      ? ` at a peak of ${gib(k.peakMemoryBytes)} of the ${gib(k.requestedMemoryBytes)} requested`
      : "";
  const how =
    k.state === "OUT_OF_MEMORY" ? "OUT_OF_MEMORY" : `${k.state} by signal ${k.signal ?? 9} over its memory`;
  return {
    kind: "scheduler",
    source: "job record",
    metric: "outcome.state",
    textValue: k.state,
    ...(k.peakMemoryBytes !== undefined && k.requestedMemoryBytes !== undefined
      ? { values: [k.peakMemoryBytes, k.requestedMemoryBytes], unit: "By" }
      : {}),
    window: { start: k.endedAt, end: k.endedAt },
    text: `Job ${k.jobId} on ${k.cluster} ended ${k.endedAt} ${how}${peak}`,
  };
}

/**
 * `repeated-oom`: at least `repeatedOomCount` of the user's other jobs of the same shape (same
 * requested memory, cores and GPUs; same script hash or job name where stored, see `sameShape`)
 * were killed for memory within the last `repeatedOomWindowHours`, and this running job asks for
 * the same again: it is likely to be killed too. Cites each earlier kill's record. Not judged for
 * a job whose record gives no shape.
 *
 * @example
 * ```ts
 * repeatedOom.evaluate(job, DEFAULT_ALERT_THRESHOLDS, { oomKills }); // { holds: true, severity: "critical", … }
 * ```
 */
export const repeatedOom: LiveRule = {
  rule: "repeated-oom",
  evaluate(job, t, context): Verdict {
    if (job.requestedMemoryBytes === undefined && job.requestedCores === undefined)
      return { holds: "unknown", reason: "no requested resources on the job's record" };
    if (!context) return { holds: "unknown", reason: "no history of the user's jobs" };
    const now = latestTime(job.samples);
    const kills = killsOfShape(job, context.oomKills, now, t.repeatedOomWindowHours, job.jobId);
    if (kills.length < t.repeatedOomCount) return { holds: false };
    const memory = job.requestedMemoryBytes !== undefined ? ` with ${gib(job.requestedMemoryBytes)}` : "";
    const named = job.jobName !== undefined ? ` ${job.jobName}` : "";
    return {
      holds: true,
      severity: "critical",
      message: `${kills.length} of ${job.user ?? "the user"}'s jobs${named} of this shape${memory} were killed for memory in the last ${t.repeatedOomWindowHours} h, and this one asks for the same: raise its memory or cut its use.`,
      evidence: kills.slice(0, MAX_KILLS_CITED).map(killEvidence),
    };
  },
};
