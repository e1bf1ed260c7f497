import { Type } from "@sinclair/typebox";
import type { ApiRoute } from "./api-route.js";

const Health = Type.Object(
  {
    status: Type.Union([Type.Literal("ok"), Type.Literal("degraded"), Type.Literal("unavailable")]),
    version: Type.String(),
    checks: Type.Optional(Type.Record(Type.String(), Type.String())),
    licence: Type.Optional(
      Type.String({ description: "Licence status: valid, grace, expired, missing, invalid." }),
    ),
  },
  { $id: "Health", description: "Health of the server." },
);

/** Health, readiness and the server's own metrics: the routes operators and probes call. */
export const operationsRoutes: ApiRoute[] = [
  {
    method: "GET",
    path: "/healthz",
    operationId: "getHealth",
    summary: "Liveness and status",
    tag: "operations",
    roles: [],
    response: Health,
  },
  {
    method: "GET",
    path: "/readyz",
    operationId: "getReadiness",
    summary: "Readiness (storage reachable)",
    tag: "operations",
    roles: [],
    response: Health,
  },
  {
    method: "GET",
    path: "/metrics",
    operationId: "getMetrics",
    summary:
      "The server's own metrics in the Prometheus text format: requests by operation and status, durations, process, database pool, licence, model",
    tag: "operations",
    roles: ["platform"],
    response: null,
    produces: ["text/plain"],
  },
];
