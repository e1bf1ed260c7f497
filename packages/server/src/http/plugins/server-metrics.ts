import type { FastifyRequest } from "fastify";
import { ServerMetrics, type ServerMetricsSources } from "../../platform/observability/server-metrics.js";
import { globalPlugin } from "./global-plugin.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The server's own metrics, served by `GET /metrics`. */
    metrics: ServerMetrics;
  }
}

/** Options of {@link serverMetricsPlugin}: what the metrics read at scrape time. */
export type ServerMetricsPluginOptions = ServerMetricsSources;

// The route table's operationId names the series; anything else (404s, the web report's pages)
// gets a fixed name, so no client-chosen path can create a series.
function operationOf(request: FastifyRequest): string {
  const config = request.routeOptions.config as { operationId?: string } | undefined;
  if (config?.operationId) return config.operationId;
  return request.routeOptions.url ? "other" : "unmatched";
}

/**
 * Counts and times every answered request as `app.metrics`, and stops its monitors on close.
 *
 * @example
 * ```ts
 * await app.register(serverMetricsPlugin, { licence: () => app.licence.status().state });
 * ```
 */
export const serverMetricsPlugin = globalPlugin<ServerMetricsPluginOptions>(
  "jobsight-server-metrics",
  async (app, options) => {
    const metrics = new ServerMetrics(options);
    app.decorate("metrics", metrics);
    app.addHook("onResponse", async (request, reply) => {
      metrics.observeRequest(operationOf(request), reply.statusCode, reply.elapsedTime / 1000);
    });
    app.addHook("onClose", async () => metrics.close());
  },
);
