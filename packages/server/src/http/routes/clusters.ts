import type { Cluster } from "@jobsight/schemas";
import { ForbiddenError } from "../../errors.js";
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
      if (principal?.cluster && principal.cluster !== body.id) {
        throw new ForbiddenError(`This token is bound to cluster ${principal.cluster}`, [
          { path: "/id", message: `must be ${principal.cluster} for this token` },
        ]);
      }
      return deps.storage.clusters.register(body);
    },
  };
}
