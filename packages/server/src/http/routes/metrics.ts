import type { ServerMetrics } from "../../platform/observability/server-metrics.js";
import type { RouteHandlers } from "./route-handler.js";

/**
 * `GET /metrics`: the server's own metrics in the Prometheus text format, for the platform role
 * (Prometheus scrapes with a bearer token: `authorization: { credentials_file: … }`).
 *
 * @example
 * ```ts
 * registerApiRoutes(app, { ...metricsRoutes(app.metrics) });
 * ```
 */
export function metricsRoutes(metrics: ServerMetrics): RouteHandlers {
  return {
    getMetrics: async ({ reply }) => reply.type(metrics.contentType).send(await metrics.render()),
  };
}
