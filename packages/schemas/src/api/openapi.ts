import type { TSchema } from "@sinclair/typebox";
import { ApiError } from "../api-error.js";
import { type ApiRoute, apiRoutes } from "./api-routes.js";

type JsonObject = Record<string, unknown>;

// TypeBox schemas carry symbol-keyed metadata; JSON round-tripping leaves plain JSON Schema.
const plain = (schema: TSchema): JsonObject => JSON.parse(JSON.stringify(schema));

function ref(schema: TSchema, components: Record<string, JsonObject>): JsonObject {
  const id = schema.$id as string | undefined;
  if (!id) return plain(schema);
  const { $id: _, ...rest } = plain(schema);
  components[id] = rest;
  return { $ref: `#/components/schemas/${id}` };
}

function parameters(route: ApiRoute): JsonObject[] {
  const out: JsonObject[] = [];
  for (const [where, schema] of [
    ["path", route.params],
    ["query", route.query],
  ] as const) {
    if (!schema) continue;
    const props = (schema.properties ?? {}) as Record<string, TSchema>;
    const required = new Set<string>((schema.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries(props)) {
      out.push({ name, in: where, required: where === "path" || required.has(name), schema: plain(prop) });
    }
  }
  return out;
}

/**
 * Build the OpenAPI 3.1 document of Jobsight's REST API from the route table.
 *
 * @example
 * ```ts
 * const doc = buildOpenApiDocument("0.1.0");
 * console.log(Object.keys(doc.paths));
 * ```
 */
export function buildOpenApiDocument(version: string): JsonObject {
  const components: Record<string, JsonObject> = {};
  const errorRef = ref(ApiError, components);
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of apiRoutes) {
    const ok = String(route.successStatus ?? 200);
    const content: JsonObject = {};
    if (route.response) content["application/json"] = { schema: ref(route.response, components) };
    for (const type of route.produces ?? []) content[type] = { schema: { type: "string" } };
    const op: JsonObject = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      parameters: parameters(route),
      responses: {
        [ok]: { description: "Success", content },
        ...(route.roles.length > 0
          ? {
              "400": {
                description: "Invalid request; every offending field is listed",
                content: { "application/json": { schema: errorRef } },
              },
              "401": {
                description: "Not authenticated",
                content: { "application/json": { schema: errorRef } },
              },
              "403": {
                description: "Not allowed for this role, user or cluster",
                content: { "application/json": { schema: errorRef } },
              },
              "429": {
                description: "Rate limited; retry after Retry-After",
                content: { "application/json": { schema: errorRef } },
              },
            }
          : {}),
        "503": {
          description: "Temporarily unavailable; retryable",
          content: { "application/json": { schema: errorRef } },
        },
      },
      "x-jobsight-roles": route.roles,
    };
    if (route.roles.length > 0) op.security = [{ bearerAuth: [] }];
    if (route.body)
      op.requestBody = {
        required: true,
        content: { "application/json": { schema: ref(route.body, components) } },
      };
    if (route.rawBody)
      op.requestBody = {
        required: true,
        content: { [route.rawBody]: { schema: { type: "string", format: "binary" } } },
      };
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Jobsight API",
      version,
      description:
        "Predict what jobs need before they run, and diagnose why they failed. Served by the Jobsight server inside the site's network.",
    },
    servers: [{ url: "http://127.0.0.1:8080" }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "OIDC access token or a scoped API token.",
        },
      },
    },
  };
}
