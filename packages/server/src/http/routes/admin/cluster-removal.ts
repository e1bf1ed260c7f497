import type { ClusterRemoval } from "@jobsight/schemas";
import { ClusterHasJobsError, UnknownClusterError } from "../../../errors.js";
import type { RouteDeps } from "../route-deps.js";
import type { RouteContext, RouteHandlers } from "../route-handler.js";
import { assertSiteWide } from "./site-wide-admin.js";

type Params = { clusterId: string };
type Query = { force?: boolean };

/**
 * `DELETE /v1/clusters/{clusterId}` (admin): removes a registration. The cluster's jobs, usage
 * and predictions are history the model learns from and are kept; a cluster with recorded jobs
 * is removed only with `force=true`, so a typo cannot silence a cluster in use. Its issued API
 * tokens are revoked first: were they left live, registering the id again would bring them back.
 * Ingest may accept the cluster's data for up to a minute more (the registry's cache).
 */
export function clusterRemovalRoutes(deps: RouteDeps): RouteHandlers {
  return {
    removeCluster: async ({ params, query, principal, request }: RouteContext<unknown, Query, Params>) => {
      assertSiteWide(principal);
      const id = params.clusterId;
      if (!(await deps.storage.clusters.get(id))) throw new UnknownClusterError(id, "/params/clusterId");
      const jobs = await deps.storage.jobs.count(id);
      if (jobs > 0 && query.force !== true) throw new ClusterHasJobsError(id, jobs);
      const now = new Date();
      let revokedTokens = 0;
      for (const token of await deps.storage.tokens.list()) {
        if (token.cluster === id && !token.revokedAt && (await deps.storage.tokens.revoke(token.id, now)))
          revokedTokens++;
      }
      const cluster = await deps.storage.clusters.remove(id);
      if (!cluster) throw new UnknownClusterError(id, "/params/clusterId");
      request.log.info({ cluster: id, jobs, revokedTokens, by: principal.user }, "cluster removed");
      const answer: ClusterRemoval = { cluster, jobs, revokedTokens };
      return answer;
    },
  };
}
