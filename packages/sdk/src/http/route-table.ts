import { type ApiRoute, apiRoutes } from "@jobsight/schemas";

/** The operation ids of the REST surface, as named in `@jobsight/schemas`' route table. */
export type OperationId =
  | "getHealth"
  | "getReadiness"
  | "getMetrics"
  | "ingestJobRecords"
  | "listJobs"
  | "getJob"
  | "getJobUsage"
  | "getJobEvents"
  | "getDiagnosis"
  | "ingestUsage"
  | "ingestNodeEvents"
  | "putArtifact"
  | "getArtifact"
  | "createPrediction"
  | "createPredictionBatch"
  | "getPrediction"
  | "getAdviceHistory"
  | "getAccuracy"
  | "getWasteReport"
  | "getPolicy"
  | "putPolicy"
  | "simulatePolicy"
  | "listPolicyAudit"
  | "admitKubernetesObject"
  | "adviseSlurmSubmission"
  | "listClusters"
  | "registerCluster"
  | "removeCluster"
  | "listTokens"
  | "createToken"
  | "revokeToken"
  | "listUsers"
  | "getModelStatus"
  | "promoteModel"
  | "rollbackModel"
  | "listAlerts"
  | "listAlertActions"
  | "getAlertPreferences"
  | "setAlertPreferences";

const byOperation = new Map(apiRoutes.map((route) => [route.operationId, route]));

/** The route of an operation; throws if the schemas package no longer has it (a contract drift). */
export function routeOf(operationId: OperationId): ApiRoute {
  const route = byOperation.get(operationId);
  if (!route) throw new Error(`@jobsight/schemas has no route ${operationId}`);
  return route;
}

/** Fill a route's `{param}` placeholders, URL-encoding each value (job ids may contain `/`). */
export function buildPath(route: ApiRoute, params: Record<string, string> = {}): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === "")
      throw new TypeError(`${route.operationId}: missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** Serialise a query object, leaving out undefined values. */
export function buildQuery(query: Record<string, string | number | boolean | undefined> | undefined): string {
  if (!query) return "";
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

type CompiledRoute = { route: ApiRoute; pattern: RegExp; names: string[] };

const compiled: CompiledRoute[] = apiRoutes.map((route) => {
  const names: string[] = [];
  const source = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { route, pattern: new RegExp(`^${source}$`), names };
});

/** Find the route serving a method and path, with its decoded path parameters. */
export function matchRoute(
  method: string,
  pathname: string,
): { route: ApiRoute; params: Record<string, string> } | { route: undefined; pathExists: boolean } {
  let pathExists = false;
  for (const { route, pattern, names } of compiled) {
    const m = pattern.exec(pathname);
    if (!m) continue;
    pathExists = true;
    if (route.method !== method.toUpperCase()) continue;
    const params: Record<string, string> = {};
    names.forEach((name, i) => {
      params[name] = decodeURIComponent(m[i + 1]);
    });
    return { route, params };
  }
  return { route: undefined, pathExists };
}
