import type { UsageBatch } from "@jobsight/schemas";
import { assertWritable, jobClusterFor } from "./access.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

/** Usage samples: JSON ingest (OTLP is the preferred path) and a job's time series. */
export function usageRoutes(deps: RouteDeps): RouteHandlers {
  return {
    ingestUsage: async ({ body, principal }: RouteContext<UsageBatch>) => {
      assertWritable(
        principal,
        body.samples.map((s) => ({ cluster: s.cluster })),
        "/samples",
      );
      return deps.ingestGate.run(() => deps.storage.samples.insert(body.samples));
    },
    getJobUsage: async ({
      params,
      query,
      principal,
    }: RouteContext<unknown, { cluster?: string; stepSeconds?: number }, { jobId: string }>) => {
      const cluster = await jobClusterFor(deps.storage, principal, params.jobId, query.cluster);
      return deps.storage.samples.series(cluster, params.jobId, { stepSeconds: query.stepSeconds });
    },
  };
}
