import type { CostRates, WasteReport } from "@jobsight/schemas";
import { type WasteGrouping, wasteReport } from "../../data-plane/queries/waste-query.js";
import { pricesAnything } from "../../intelligence/cost/price-hours.js";
import { recommendationSavings } from "../../intelligence/cost/recommendation-savings.js";
import { priceWasteReport } from "../../intelligence/cost/waste-cost.js";
import { accessScope } from "./access.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

type WasteQuery = { cluster?: string; from?: string; to?: string; by?: WasteGrouping; savings?: boolean };

/** Options of {@link wasteReportHandlers}. */
export type WasteReportHandlerOptions = {
  /** The site's rates (`cost.*`): each row's cost in money. @default undefined (amounts only) */
  rates?: CostRates;
};

/**
 * `GET /v1/reports/waste`: requested against used resources of ended jobs, by user, account or
 * partition, priced at the site's rates when it set any; with `savings=true`, also what the
 * recorded advice would have saved over the 30 days before `to`. A platform token bound to a
 * cluster sees only that cluster.
 *
 * @example
 * ```ts
 * const app = await buildApp({ config, handlers: (deps) => ({ ...wasteReportHandlers(deps, { rates: config.cost }) }) });
 * ```
 */
export function wasteReportHandlers(deps: RouteDeps, options: WasteReportHandlerOptions = {}): RouteHandlers {
  const rates = pricesAnything(options.rates) ? options.rates : undefined;
  return {
    getWasteReport: async ({ query, principal }: RouteContext<unknown, WasteQuery>) => {
      const scope = accessScope(principal, query.cluster);
      const report = await wasteReport(deps.storage.pool, {
        by: query.by,
        cluster: scope.cluster,
        from: query.from,
        to: query.to,
      });
      const priced: WasteReport = rates ? priceWasteReport(report, rates) : report;
      if (query.savings)
        priced.savings = await recommendationSavings(deps.storage, {
          cluster: scope.cluster,
          ...(query.to ? { to: new Date(query.to) } : {}),
          rates,
        });
      return priced;
    },
  };
}
