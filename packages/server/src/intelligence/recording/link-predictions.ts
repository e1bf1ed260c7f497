import { hash } from "node:crypto";
import type { JobSpec } from "@jobsight/schemas";
import type { PredictionForAccuracy } from "../../data-plane/stores/prediction-store.js";
import type { StoredJob } from "../../data-plane/stores/stored-jobs.js";

/**
 * The identity that ties a prediction to the job later submitted: the same cluster, user, job
 * name, script hash, executable and array index. The requested values are left out on purpose:
 * in live mode the scheduler submits the recommended values, not the asked-for ones.
 *
 * @example
 * ```ts
 * linkKeyOf(request.spec) === linkKeyOf(jobRecord.spec); // same submission
 * ```
 */
export function linkKeyOf(spec: JobSpec): string {
  const identity = [
    spec.cluster,
    spec.user,
    spec.jobName ?? "",
    spec.scriptHash ?? "",
    spec.executable ?? "",
    spec.array?.taskId ?? "",
  ];
  return hash("sha256", JSON.stringify(identity), "hex").slice(0, 32);
}

/** How close in time a prediction and a job of the same identity must be. */
export type LinkWindow = {
  /** Longest time from a prediction to the job's submission, in seconds. @default 3600 */
  afterSeconds: number;
  /** Clock skew allowed the other way (and around a stated `submitTime`), in seconds. @default 120 */
  skewSeconds: number;
};

/** The defaults of {@link LinkWindow}. */
export const LINK_WINDOW: LinkWindow = { afterSeconds: 3600, skewSeconds: 120 };

/** A prediction and the job it was made for. */
export type LinkedPrediction = { prediction: PredictionForAccuracy; job: StoredJob };

/**
 * Pairs recorded predictions with the ended jobs they were made for: same {@link linkKeyOf}
 * identity, and the job submitted within `afterSeconds` after the prediction (or within the skew
 * of the `submitTime` the request stated). Each job takes the latest such prediction made before it (else the
 * first just after), each prediction at most one job; jobs are taken in submit order.
 *
 * @example
 * ```ts
 * const pairs = linkPredictions(predictions, endedJobs);
 * ```
 */
export function linkPredictions(
  predictions: readonly PredictionForAccuracy[],
  jobs: readonly StoredJob[],
  window: LinkWindow = LINK_WINDOW,
): LinkedPrediction[] {
  const byKey = new Map<string, PredictionForAccuracy[]>();
  for (const p of predictions) {
    const list = byKey.get(p.linkKey);
    if (list) list.push(p);
    else byKey.set(p.linkKey, [p]);
  }
  for (const list of byKey.values()) list.sort((a, b) => a.createdAt - b.createdAt);
  const taken = new Set<string>();
  const out: LinkedPrediction[] = [];
  const ordered = [...jobs].sort((a, b) => a.submittedAt - b.submittedAt);
  for (const job of ordered) {
    const list = byKey.get(linkKeyOf(job.spec));
    if (!list) continue;
    // The latest prediction made before the submission; failing that, the first one just after
    // it (clocks of the scheduler and the server differ a little).
    let before: PredictionForAccuracy | undefined;
    let after: PredictionForAccuracy | undefined;
    for (const p of list) {
      if (taken.has(p.id) || p.cluster !== job.cluster) continue;
      const anchor = p.submitTime ?? p.createdAt;
      const fits =
        p.submitTime !== undefined
          ? Math.abs(job.submittedAt - p.submitTime) <= window.skewSeconds
          : job.submittedAt >= p.createdAt - window.skewSeconds &&
            job.submittedAt <= p.createdAt + window.afterSeconds;
      if (!fits) continue;
      if (anchor <= job.submittedAt) {
        if (!before || anchor > (before.submitTime ?? before.createdAt)) before = p;
      } else if (!after || anchor < (after.submitTime ?? after.createdAt)) after = p;
    }
    const best = before ?? after;
    if (best) {
      taken.add(best.id);
      out.push({ prediction: best, job });
    }
  }
  return out;
}
