import type { Alert, AlertRule, EvidenceRef } from "@jobsight/schemas";
import type { LiveJob } from "../../../data-plane/queries/live-samples.js";
import type { AlertThresholds } from "../alert-thresholds.js";

/** What a live rule says of a job at one evaluation. */
export type Verdict =
  | {
      holds: true;
      severity: Alert["severity"];
      message: string;
      /** At least one piece of evidence: the samples the verdict rests on. */
      evidence: EvidenceRef[];
      /** memory-near-limit: when the limit is reached at the recent rate. */
      projectedAt?: string;
    }
  /** The rule was judged and does not hold: a firing alert of it resolves. */
  | { holds: false }
  /** Not enough data to judge (too short, no GPU readings, no limit): a firing alert stays as it is. */
  | { holds: "unknown"; reason: string };

/**
 * A live rule over the recent samples of one running job. Rules judge the job's own clock (its
 * latest sample), so the same series gives the same verdict whenever it is evaluated; the loop
 * leaves out jobs that stopped reporting.
 */
export type LiveRule = {
  readonly rule: AlertRule;
  evaluate(job: LiveJob, thresholds: AlertThresholds): Verdict;
};
