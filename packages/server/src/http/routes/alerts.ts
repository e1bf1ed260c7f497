import type { AlertList, AlertQuery } from "@jobsight/schemas";
import { accessScope } from "./access.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

/** Live alerts over running jobs: a researcher sees only their own jobs', platform and admin all. */
export function alertRoutes(deps: RouteDeps): RouteHandlers {
  return {
    listAlerts: async ({ query, principal }: RouteContext<unknown, AlertQuery>): Promise<AlertList> => {
      const scope = accessScope(principal, query.cluster);
      // A researcher asking for another user's alerts gets an empty list, not someone else's data.
      if (scope.user !== undefined && query.user !== undefined && query.user !== scope.user)
        return { alerts: [] };
      const alerts = await deps.storage.alerts.list({
        cluster: scope.cluster,
        user: scope.user ?? query.user,
        state: query.state,
        limit: query.limit ?? 100,
      });
      return { alerts };
    },
  };
}
