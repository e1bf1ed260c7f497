import {
  type ApiRoute,
  apiRoutes,
  compileValidator,
  type FieldError,
  type Validator,
  validators,
} from "@jobsight/schemas";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { NotImplementedError, UnsupportedMediaTypeError, ValidationError } from "../../errors.js";
import { answerExpectContinue } from "../../platform/expect-continue.js";
import { BatchItems, type SplitBatch } from "./batch-items.js";
import { bodyMayHoldUnstorable } from "./json-body-parser.js";
import type { RouteHandler, RouteHandlers } from "./route-handler.js";
import { unstorableTextErrors } from "./unstorable-text.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route's operation in the route table (named in metrics and logs). */
    operationId?: string;
  }
}

/** Options of {@link registerApiRoutes}. */
export type RegisterApiRoutesOptions = {
  /** Largest body of routes with a raw (non-JSON) body, in bytes. @default 33554432 */
  rawBodyLimitBytes?: number;
  /** The route table. @default apiRoutes of @jobsight/schemas */
  routes?: readonly ApiRoute[];
};

type Part = "body" | "query" | "params";

/** The items an ingest batch's request refused while storing the others (see `BatchItems`). */
const SPLIT = Symbol("split batch");
type WithSplit = FastifyRequest & { [SPLIT]?: SplitBatch };

const byId = validators as unknown as Record<string, Validator<TSchema>>;

function validatorFor(schema: TSchema): Validator<TSchema> {
  const id = schema.$id as string | undefined;
  return (id && byId[id]) || compileValidator(schema);
}

/** `/v1/jobs/{jobId}` → `/v1/jobs/:jobId`. */
export function fastifyPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1");
}

/**
 * Registers every route of the table with the handler of its `operationId` (501 NOT_IMPLEMENTED
 * when there is none), so paths, methods and roles cannot drift from the OpenAPI document. Each
 * route: rate limit, then authentication and role, then validation of params, query and body
 * with the schemas' compiled validators (400 naming every offending field), then the handler. An
 * ingest batch (a route answering `IngestResult`) is judged item by item: its invalid items are
 * taken out and named in the answer's `rejected`, the others stored (see `BatchItems`). A body
 * announced with `Expect: 100-continue` over its route's limit is answered 413 before it is sent
 * (see `answerExpectContinue`).
 *
 * @example
 * ```ts
 * registerApiRoutes(app, { getHealth: async () => ({ status: "ok", version }) });
 * ```
 */
export function registerApiRoutes(
  app: FastifyInstance,
  handlers: RouteHandlers,
  options: RegisterApiRoutesOptions = {},
): void {
  const routes = options.routes ?? apiRoutes;
  // The body limits are set here, so a body announced over them is refused here too.
  answerExpectContinue(app);
  const known = new Set(routes.map((r) => r.operationId));
  for (const id of Object.keys(handlers)) {
    if (!known.has(id)) throw new Error(`Handler for unknown operation ${id}: not in the route table`);
  }
  const jsonRoutes = routes.filter((r) => !r.rawBody);
  const rawRoutes = routes.filter((r) => r.rawBody);
  for (const route of jsonRoutes) addRoute(app, route, handlers[route.operationId]);
  if (rawRoutes.length > 0) {
    // Raw-body routes take the bytes as they are, whatever the content type (even JSON).
    app.register(async (raw) => {
      raw.removeAllContentTypeParsers();
      raw.addContentTypeParser(
        "*",
        { parseAs: "buffer", bodyLimit: options.rawBodyLimitBytes ?? 32 * 1024 * 1024 },
        (_req, body, done) => done(null, body),
      );
      for (const route of rawRoutes)
        addRoute(raw, route, handlers[route.operationId], options.rawBodyLimitBytes);
    });
  }
}

function addRoute(
  app: FastifyInstance,
  route: ApiRoute,
  handler: RouteHandler | undefined,
  bodyLimit?: number,
): void {
  const checks: [Part, Validator<TSchema>, TSchema][] = [];
  if (route.params) checks.push(["params", validatorFor(route.params), route.params]);
  if (route.query) checks.push(["query", validatorFor(route.query), route.query]);
  if (route.body) checks.push(["body", validatorFor(route.body), route.body]);
  const batchItems = route.body ? BatchItems.of(route, validatorFor(route.body)) : undefined;
  const status = route.successStatus ?? 200;
  // Before authentication: requests are limited by their token's hash before it is verified.
  const rateLimit = app.rateLimit();
  app.route({
    method: route.method,
    url: fastifyPath(route.path),
    ...(bodyLimit ? { bodyLimit } : {}),
    config: { operationId: route.operationId },
    onRequest: [
      rateLimit,
      async (request: FastifyRequest) => {
        await app.authorize(request, route.roles);
      },
    ],
    preValidation: async (request: WithSplit) => {
      if (route.body && !isJson(request.headers["content-type"])) {
        throw new UnsupportedMediaTypeError(request.headers["content-type"]);
      }
      const parts = request as unknown as Record<Part, unknown>;
      const errors: FieldError[] = [
        ...unstorableTextErrors(parts.params, "/params"),
        ...unstorableTextErrors(parts.query, "/query"),
      ];
      let outsideBodyFailed = errors.length > 0;
      if (route.body && bodyMayHoldUnstorable(request)) errors.push(...unstorableTextErrors(parts.body));
      let bodyFailed = errors.length > 0 && !outsideBodyFailed;
      for (const [part, validator, schema] of checks) {
        // Query and path values arrive as strings; convert them the way the schema asks first.
        const value = part === "body" ? parts.body : Value.Convert(schema, { ...(parts[part] as object) });
        const result = validator.validate(value);
        if (result.ok) parts[part] = result.value;
        else {
          if (part === "body") bodyFailed = true;
          else outsideBodyFailed = true;
          errors.push(
            ...result.errors.map((e) => (part === "body" ? e : { ...e, path: `/${part}${e.path}` })),
          );
        }
      }
      if (!route.params && !route.query && request.query && Object.keys(request.query as object).length > 0) {
        outsideBodyFailed = true;
        errors.push(
          ...Object.keys(request.query as object).map((k) => ({
            path: `/query/${k}`,
            message: "Unknown query parameter",
          })),
        );
      }
      // Only the body is wrong, and only some of a batch's items: store the others.
      const split = batchItems && bodyFailed && !outsideBodyFailed ? batchItems.split(parts.body) : undefined;
      if (split) {
        parts.body = split.body;
        request[SPLIT] = split;
        return;
      }
      if (errors.length > 0) throw new ValidationError(errors);
    },
    handler: async (request: WithSplit, reply: FastifyReply) => {
      if (!handler) throw new NotImplementedError(route.operationId);
      const split = request[SPLIT];
      let result: unknown;
      try {
        result = await handler({
          body: request.body,
          query: request.query,
          params: request.params,
          principal: request.principal,
          request,
          reply,
        });
      } catch (error) {
        throw split && batchItems ? batchItems.inBatchPositions(error, split) : error;
      }
      if (reply.sent) return reply;
      if (split) result = { ...(result as object), rejected: split.rejected };
      return reply.code(status).send(result);
    },
  });
}

function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(";")[0].trim().toLowerCase();
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}
