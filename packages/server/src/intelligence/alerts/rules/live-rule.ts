import type { Alert, AlertRule, EvidenceRef } from "@jobsight/schemas";
import type { LiveJob } from "../../../data-plane/queries/live-samples.js";
import type { OomKilledJob } from "../../../data-plane/queries/oom-history.js";
import type { AlertThresholds } from "../alert-thresholds.js";

/** What a live rule says of a job at one evaluation. */
export type Verdict =
  | {
      holds: true;
      severity: Alert["severity"];
      message: string;
      /** At least one piece of evidence: the samples the verdict rests on. */
      evidence: EvidenceRef[];
      /** memory-near-limit: when the limit is reached; walltime-overrun: when the job ends (recent rates). */
      projectedAt?: string;
    }
  /** The rule was judged and does not hold: a firing alert of it resolves. */
  | { holds: false }
  /** Not enough data to judge (too short, no GPU readings, no limit): a firing alert stays as it is. */
  | { holds: "unknown"; reason: string };

/** What a rule may know beyond the job's own samples. */
export type RuleContext = {
  /** The job owner's recent jobs killed for memory, newest first (repeated-oom). */
  oomKills: readonly OomKilledJob[];
};

/**
 * A live rule over the recent samples of one running job. Rules judge the job's own clock (its
 * latest sample), so the same series gives the same verdict whenever it is evaluated; the loop
 * leaves out jobs that stopped reporting.
 */
export type LiveRule = {
  readonly rule: AlertRule;
  evaluate(job: LiveJob, thresholds: AlertThresholds, context?: RuleContext): Verdict;
};
