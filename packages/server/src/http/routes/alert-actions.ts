import type { AlertActionList, AlertActionQuery } from "@jobsight/schemas";
import { accessScope } from "./access.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

/**
 * The audit log of actions under policy: a researcher sees only the actions on their own jobs,
 * platform and admin all (a cluster-bound token, its cluster's).
 */
export function alertActionRoutes(deps: RouteDeps): RouteHandlers {
  return {
    listAlertActions: async ({
      query,
      principal,
    }: RouteContext<unknown, AlertActionQuery>): Promise<AlertActionList> => {
      const scope = accessScope(principal, query.cluster);
      // A researcher asking for another user's actions gets an empty list, not someone else's data.
      if (scope.user !== undefined && query.user !== undefined && query.user !== scope.user)
        return { actions: [] };
      const actions = await deps.storage.alertActions.list({
        cluster: scope.cluster,
        user: scope.user ?? query.user,
        jobId: query.jobId,
        limit: query.limit ?? 100,
      });
      return { actions };
    },
  };
}
