import type { Cluster } from "@jobsight/schemas";
import { accessScope } from "./access.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

/** Registered clusters (platform role). A cluster-bound platform token sees and registers only its own. */
export function clusterRoutes(deps: RouteDeps): RouteHandlers {
  return {
    listClusters: async ({ principal }: RouteContext) => {
      const clusters = await deps.storage.clusters.list();
      const own = principal?.cluster;
      return { clusters: own ? clusters.filter((c) => c.id === own) : clusters };
    },
    registerCluster: async ({ body, principal }: RouteContext<Cluster>) => {
      accessScope(principal, body.id, "/id");
      return deps.storage.clusters.register(body);
    },
  };
}
