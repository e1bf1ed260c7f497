import type { RouteDeps } from "../route-deps.js";
import type { RouteHandlers } from "../route-handler.js";
import { apiTokenRoutes } from "./api-token-routes.js";
import { clusterRemovalRoutes } from "./cluster-removal.js";
import { userRoutes } from "./user-routes.js";

/**
 * The operators' data-plane operations of the route table: cluster removal, API tokens and users.
 * The model registry's (`modelRoutes`) come with the intelligence plane's handlers.
 *
 * @example
 * ```ts
 * registerApiRoutes(app, { ...clusterRoutes(deps), ...adminHandlers(deps) });
 * ```
 */
export function adminHandlers(deps: RouteDeps): RouteHandlers {
  return {
    ...clusterRemovalRoutes(deps),
    ...apiTokenRoutes(deps),
    ...userRoutes(deps),
  };
}
