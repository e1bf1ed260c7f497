import { adminRoutes } from "./routes/admin-routes.js";
import type { ApiRoute } from "./routes/api-route.js";
import { dataPlaneRoutes } from "./routes/data-plane-routes.js";
import { intelligenceRoutes } from "./routes/intelligence-routes.js";
import { operationsRoutes } from "./routes/operations-routes.js";
import { platformRoutes } from "./routes/platform-routes.js";

export type { ApiRoute, Role } from "./routes/api-route.js";
export { ROLES } from "./routes/api-route.js";

// The admin role may do everything the platform role may: every route open to `platform` is open
// to `admin` too, so the route files name `platform` only and the table stays the one source.
function withAdmin(route: ApiRoute): ApiRoute {
  if (!route.roles.includes("platform") || route.roles.includes("admin")) return route;
  return { ...route, roles: [...route.roles, "admin"] };
}

/** Every REST route Jobsight serves, in one table (the OpenAPI document lists them in this order). */
export const apiRoutes: ApiRoute[] = [
  ...operationsRoutes,
  ...dataPlaneRoutes,
  ...intelligenceRoutes,
  ...platformRoutes,
  ...adminRoutes,
].map(withAdmin);
