import type { ApiRoute } from "./routes/api-route.js";
import { dataPlaneRoutes } from "./routes/data-plane-routes.js";
import { intelligenceRoutes } from "./routes/intelligence-routes.js";
import { operationsRoutes } from "./routes/operations-routes.js";
import { platformRoutes } from "./routes/platform-routes.js";

export type { ApiRoute, Role } from "./routes/api-route.js";
export { ROLES } from "./routes/api-route.js";

/** Every REST route Jobsight serves, in one table (the OpenAPI document lists them in this order). */
export const apiRoutes: ApiRoute[] = [
  ...operationsRoutes,
  ...dataPlaneRoutes,
  ...intelligenceRoutes,
  ...platformRoutes,
];
