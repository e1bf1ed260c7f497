import type { AlertRule } from "@jobsight/schemas";
import type { LiveJob } from "../../data-plane/queries/live-samples.js";
import type { OomKilledJob } from "../../data-plane/queries/oom-history.js";
import type { FiringAlert } from "../../data-plane/stores/alert-store.js";
import type { AlertThresholds } from "./alert-thresholds.js";
import type { LiveRule } from "./rules/live-rule.js";
import { LIVE_RULES } from "./rules/live-rules.js";

/** The key of an alert's row: one per job and rule. */
export const alertKey = (cluster: string, jobId: string, rule: AlertRule) =>
  `${cluster}\u0000${jobId}\u0000${rule}`;

/** What one evaluation of the live rules found. */
export type Evaluation = {
  /** The rules that hold, one per job and rule. */
  firing: FiringAlert[];
  /** Keys ({@link alertKey}) of the rules judged not to hold: their firing alerts resolve. */
  cleared: Set<string>;
  /** Jobs judged, as `cluster\0jobId`. */
  judgedJobs: Set<string>;
  /** Jobs left out because no one is known to own them (no record, no user on the samples). */
  unowned: number;
};

/**
 * Runs every live rule over every job. A job without a known owner is left out: an alert must
 * name whose job it is, and ownership is never assumed. `oomKills` are the owners' recent jobs
 * killed for memory (repeated-oom judges a job by its owner's).
 *
 * @example
 * ```ts
 * const { firing, cleared } = evaluateJobs(jobs, DEFAULT_ALERT_THRESHOLDS);
 * ```
 */
export function evaluateJobs(
  jobs: readonly LiveJob[],
  thresholds: AlertThresholds,
  rules: readonly LiveRule[] = LIVE_RULES,
  oomKills: readonly OomKilledJob[] = [],
): Evaluation {
  const killsOf = new Map<string, OomKilledJob[]>();
  for (const k of oomKills) {
    const list = killsOf.get(k.user) ?? [];
    list.push(k);
    killsOf.set(k.user, list);
  }
  const evaluation: Evaluation = { firing: [], cleared: new Set(), judgedJobs: new Set(), unowned: 0 };
  for (const job of jobs) {
    const user = job.user ?? job.samples.find((s) => s.user !== undefined)?.user;
    if (user === undefined) {
      evaluation.unowned++;
      continue;
    }
    evaluation.judgedJobs.add(`${job.cluster}\u0000${job.jobId}`);
    for (const rule of rules) {
      const verdict = rule.evaluate(job, thresholds, { oomKills: killsOf.get(user) ?? [] });
      if (verdict.holds === true) {
        const { holds: _, ...found } = verdict;
        evaluation.firing.push({ cluster: job.cluster, jobId: job.jobId, user, rule: rule.rule, ...found });
      } else if (verdict.holds === false) {
        evaluation.cleared.add(alertKey(job.cluster, job.jobId, rule.rule));
      }
    }
  }
  return evaluation;
}
