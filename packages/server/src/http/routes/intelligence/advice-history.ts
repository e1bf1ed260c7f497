import { recordedAdvice } from "../../../data-plane/queries/recorded-advice.js";
import { adviceHistory } from "../../../intelligence/recording/advice-history.js";
import { LINK_WINDOW, linkKeyOf } from "../../../intelligence/recording/link-predictions.js";
import { accessScope, findVisibleJob } from "../access.js";
import type { RouteDeps } from "../route-deps.js";
import type { RouteContext, RouteHandlers } from "../route-handler.js";

/** How far back from a job's submission its advice history reaches (a month of daily retraining). */
export const ADVICE_HISTORY_DAYS = 30;

const DAY_MS = 86_400_000;

/**
 * `GET /v1/jobs/{jobId}/advice-history`: how the advice for a job changed across model versions,
 * and why, from the predictions recorded for its submission identity (see `linkKeyOf`) in the
 * {@link ADVICE_HISTORY_DAYS} days up to its submission. A researcher sees only their own jobs (as
 * with `getJob`) and only advice that was shown (live mode); the platform sees shadow mode too.
 *
 * @example
 * ```ts
 * registerApiRoutes(app, { ...adviceHistoryRoutes(deps) });
 * ```
 */
export function adviceHistoryRoutes(deps: RouteDeps): RouteHandlers {
  return {
    getAdviceHistory: async ({
      params,
      query,
      principal,
    }: RouteContext<unknown, { cluster?: string }, { jobId: string }>) => {
      const job = await findVisibleJob(deps.storage, accessScope(principal, query.cluster), params.jobId);
      const submitted = Date.parse(job.submittedAt);
      // A prediction may be recorded just after the submission it was for (clock skew).
      const to = new Date(submitted + LINK_WINDOW.skewSeconds * 1000);
      const from = new Date(submitted - ADVICE_HISTORY_DAYS * DAY_MS);
      const advice = await recordedAdvice(deps.storage.pool, {
        cluster: job.cluster,
        linkKey: linkKeyOf(job.spec),
        from,
        to,
        includeShadow: principal?.role !== "researcher",
      });
      return adviceHistory({
        cluster: job.cluster,
        jobId: job.jobId,
        from: from.toISOString(),
        to: to.toISOString(),
        advice,
      });
    },
  };
}
