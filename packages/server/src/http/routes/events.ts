import type { NodeEventBatch } from "@jobsight/schemas";
import { assertWritable, jobClusterFor } from "./access.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

/** Node events: ingest from collectors, and the events attributed to a job. */
export function eventRoutes(deps: RouteDeps): RouteHandlers {
  return {
    ingestNodeEvents: async ({ body, principal }: RouteContext<NodeEventBatch>) => {
      assertWritable(
        principal,
        body.events.map((e) => ({ cluster: e.cluster })),
        "/events",
      );
      return deps.ingestGate.run(() => deps.storage.events.insert(body.events));
    },
    getJobEvents: async ({
      params,
      query,
      principal,
    }: RouteContext<unknown, { cluster?: string }, { jobId: string }>) => {
      const cluster = await jobClusterFor(deps.storage, principal, params.jobId, query.cluster);
      return { events: await deps.storage.events.forJob(cluster, params.jobId) };
    },
  };
}
