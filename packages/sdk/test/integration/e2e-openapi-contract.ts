import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { compileValidator, wireSchemas } from "@jobsight/schemas";

type Schema = { [key: string]: unknown };
type Parameter = { name: string; in: "path" | "query"; required: boolean; schema: Schema };
type MediaTypes = Record<string, { schema: Schema }>;
type Operation = {
  operationId: string;
  parameters: Parameter[];
  requestBody?: { required?: boolean; content: MediaTypes };
  responses: Record<string, { content?: MediaTypes }>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

/** The committed OpenAPI document of `@jobsight/schemas`, the contract every example must keep. */
export const openApiDocument: Document = JSON.parse(
  readFileSync(fileURLToPath(new URL("../../../schemas/openapi/openapi.json", import.meta.url)), "utf8"),
);

/**
 * A request as an example makes it. For a call site read from code rather than a request sent,
 * `{}` in `path` and a `null` query value stand for values unknown until run time, and `bodyUnknown`
 * says the body is built at run time.
 */
export type ApiCall = {
  method: string;
  path: string;
  query?: Record<string, string | null>;
  bodyUnknown?: boolean;
  contentType?: string;
  body?: unknown;
  /** The answer's status and media type, when the call was made. */
  status?: number;
  responseType?: string;
};

const templates = Object.keys(openApiDocument.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`),
  names: [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
}));

const mediaType = (value: string | undefined) => value?.split(";")[0].trim().toLowerCase();

/** Problems of one string value (a query or path parameter) against its parameter schema. */
function checkValue(value: string, schema: Schema, where: string): string[] {
  if (Array.isArray(schema.anyOf)) {
    const branches = (schema.anyOf as Schema[]).map((s) => checkValue(value, s, where));
    return branches.some((p) => p.length === 0) ? [] : [`${where}: ${value} matches no allowed form`];
  }
  if (schema.const !== undefined && String(schema.const) !== value)
    return [`${where}: must be ${String(schema.const)}, not ${value}`];
  const problems: string[] = [];
  const type = schema.type;
  if ((type === "integer" && !/^-?\d+$/.test(value)) || (type === "number" && Number.isNaN(Number(value)))) {
    return [`${where}: ${value} is not a ${type}`];
  }
  if (type === "boolean" && value !== "true" && value !== "false") return [`${where}: not a boolean`];
  if (type === "integer" || type === "number") {
    const n = Number(value);
    if (typeof schema.minimum === "number" && n < schema.minimum)
      problems.push(`${where}: below ${schema.minimum}`);
    if (typeof schema.maximum === "number" && n > schema.maximum)
      problems.push(`${where}: above ${schema.maximum}`);
  }
  if (typeof schema.pattern === "string" && !new RegExp(schema.pattern).test(value))
    problems.push(`${where}: ${value} does not match ${schema.pattern}`);
  if (typeof schema.minLength === "number" && value.length < schema.minLength)
    problems.push(`${where}: too short`);
  if (typeof schema.maxLength === "number" && value.length > schema.maxLength)
    problems.push(`${where}: too long`);
  if (schema.format === "date-time" && Number.isNaN(Date.parse(value)))
    problems.push(`${where}: not a date-time`);
  return problems;
}

/** The wire schema behind a `$ref`, after checking it is exactly the document's component. */
function bodyValidator(ref: string) {
  const name = ref.replace("#/components/schemas/", "");
  const schema = wireSchemas[name];
  if (!schema) return { name, problem: `${ref}: no such wire schema in @jobsight/schemas` };
  const { $id: _, ...plain } = JSON.parse(JSON.stringify(schema));
  if (!isDeepStrictEqual(plain, openApiDocument.components.schemas[name])) {
    return { name, problem: `${ref}: the OpenAPI document is stale against @jobsight/schemas` };
  }
  return { name, validator: compileValidator(schema, name) };
}

/**
 * Checks a request against the OpenAPI document: the path template and method exist, every
 * query parameter is declared and valid, required ones are present, path parameters are valid,
 * the body's media type is accepted and the body matches the schema; for a call that was answered
 * with 2xx, the status and media type are the documented ones.
 *
 * @example
 * ```ts
 * expect(checkCall({ method: "GET", path: "/v1/jobs/{}/diagnosis" }).problems).toEqual([]);
 * ```
 */
export function checkCall(call: ApiCall): { operationId?: string; template?: string; problems: string[] } {
  const label = `${call.method} ${call.path}`;
  const match = templates.find((t) => t.pattern.test(call.path));
  if (!match) return { problems: [`${label}: no path of the OpenAPI document matches`] };
  const operation = openApiDocument.paths[match.template][call.method.toLowerCase()];
  if (!operation)
    return { template: match.template, problems: [`${label}: ${match.template} has no ${call.method}`] };
  const problems: string[] = [];
  const segments = call.path.split("/");
  match.template.split("/").forEach((part, i) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    const value = segments[i];
    const parameter = operation.parameters.find((p) => p.in === "path" && p.name === name);
    if (name && value !== "{}" && parameter)
      problems.push(...checkValue(decodeURIComponent(value), parameter.schema, `path ${name}`));
  });
  const query = call.query ?? {};
  for (const [name, value] of Object.entries(query)) {
    const parameter = operation.parameters.find((p) => p.in === "query" && p.name === name);
    if (!parameter) problems.push(`${label}: query parameter ${name} is not in the document`);
    else if (value !== null) problems.push(...checkValue(value, parameter.schema, `query ${name}`));
  }
  for (const p of operation.parameters) {
    if (p.in === "query" && p.required && !(p.name in query))
      problems.push(`${label}: query ${p.name} is required`);
  }
  if (call.bodyUnknown) {
    if (!operation.requestBody) problems.push(`${label}: the operation takes no body`);
  } else if (call.body === undefined) {
    if (operation.requestBody?.required) problems.push(`${label}: the request body is required`);
  } else if (!operation.requestBody) {
    problems.push(`${label}: the operation takes no body`);
  } else {
    const type = mediaType(call.contentType) ?? "application/json";
    const media = operation.requestBody.content[type];
    if (!media) problems.push(`${label}: body of type ${type} is not accepted`);
    else if (typeof media.schema.$ref === "string") {
      const { problem, validator, name } = bodyValidator(media.schema.$ref);
      if (problem) problems.push(problem);
      const result = validator?.validate(call.body);
      if (result && !result.ok) {
        problems.push(...result.errors.map((e) => `${label}: body ${e.path || "/"} (${name}): ${e.message}`));
      }
    }
  }
  if (call.status !== undefined && call.status >= 200 && call.status < 300) {
    const response = operation.responses[String(call.status)];
    if (!response) problems.push(`${label}: status ${call.status} is not documented`);
    else if (response.content && Object.keys(response.content).length > 0) {
      const type = mediaType(call.responseType);
      if (!type || !response.content[type])
        problems.push(`${label}: answer of type ${type} is not documented`);
    }
  }
  return { operationId: operation.operationId, template: match.template, problems };
}
