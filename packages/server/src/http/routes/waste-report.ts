import { type WasteGrouping, wasteReport } from "../../data-plane/queries/waste-query.js";
import { accessScope } from "./access.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

type WasteQuery = { cluster?: string; from?: string; to?: string; by?: WasteGrouping };

/**
 * `GET /v1/reports/waste`: requested against used resources of ended jobs, by user, account or
 * partition. A platform token bound to a cluster sees only that cluster.
 *
 * @example
 * ```ts
 * const app = await buildApp({ config, handlers: (deps) => ({ ...wasteReportHandlers(deps) }) });
 * ```
 */
export function wasteReportHandlers(deps: RouteDeps): RouteHandlers {
  return {
    getWasteReport: async ({ query, principal }: RouteContext<unknown, WasteQuery>) => {
      const scope = accessScope(principal, query.cluster);
      return wasteReport(deps.storage.pool, {
        by: query.by,
        cluster: scope.cluster,
        from: query.from,
        to: query.to,
      });
    },
  };
}
