import type { JobRecordBatch } from "@jobsight/schemas";
import type { ListJobsOptions } from "../../data-plane/queries/job-queries.js";
import { accessScope, assertWritable, findVisibleJob } from "./access.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

type ListQuery = Omit<ListJobsOptions, "clusters">;

/** Job records: ingest (collectors, platform), list and read (researchers see only their own). */
export function jobRoutes(deps: RouteDeps): RouteHandlers {
  return {
    ingestJobRecords: async ({ body, principal }: RouteContext<JobRecordBatch>) => {
      assertWritable(
        principal,
        body.records.map((r) => ({ cluster: r.cluster, user: r.spec.user })),
        "/records",
      );
      return deps.ingestGate.run(() => deps.storage.jobs.upsert(body.records));
    },
    listJobs: async ({ query, principal }: RouteContext<unknown, ListQuery>) => {
      const scope = accessScope(principal, query.cluster);
      // A researcher asking for another user's jobs gets an empty list, not someone else's data.
      if (scope.user !== undefined && query.user !== undefined && query.user !== scope.user) {
        return { items: [], nextCursor: null };
      }
      return deps.storage.jobs.list({ ...query, ...scope });
    },
    getJob: async ({
      params,
      query,
      principal,
    }: RouteContext<unknown, { cluster?: string }, { jobId: string }>) =>
      findVisibleJob(deps.storage, accessScope(principal, query.cluster), params.jobId),
  };
}
