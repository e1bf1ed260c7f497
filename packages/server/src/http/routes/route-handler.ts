import type { FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "../../platform/identity/principal.js";

/** What a route handler gets: the validated request parts and the caller. */
export type RouteContext<B = unknown, Q = unknown, P = unknown> = {
  body: B;
  query: Q;
  params: P;
  /** The caller; `undefined` only on unauthenticated routes. */
  principal: Principal | undefined;
  request: FastifyRequest;
  reply: FastifyReply;
};

/**
 * Serves one operation of the route table. The value returned is sent with the route's success
 * status (a stream is sent as it is); throw a `JobsightError` to answer with an error.
 */
// biome-ignore lint/suspicious/noExplicitAny: handlers narrow their own body/query/params types.
export type RouteHandler = (context: RouteContext<any, any, any>) => Promise<unknown>;

/** Handlers by `operationId` of `apiRoutes`. */
export type RouteHandlers = Partial<Record<string, RouteHandler>>;
