import type { ApiRoute, Role } from "@jobsight/schemas";
import { ForbiddenError, NotFoundError, UnauthenticatedError } from "../../errors.js";
import { inPrincipalClusters, type Principal } from "./principal.js";

/**
 * What a role may reach on a route:
 * - `public`: anyone, signed in or not (health only).
 * - `any`: the role suffices (site-wide reads such as the policy).
 * - `cluster`: the target's cluster must be one of the principal's; a target without a cluster
 *   only for principals of every cluster.
 * - `cluster-scoped`: like `cluster`, but without a target cluster the request is allowed and the
 *   answer must be filtered to the principal's clusters (lists, reports).
 * - `own`: the target's user must be the principal's user (and its cluster, when it has one, one
 *   of the principal's clusters).
 * - `own-scoped`: like `own`, but without a target user the answer must be filtered to the
 *   principal's own jobs (lists).
 * - `site`: only principals of every cluster (site-wide writes such as the policy).
 */
export type AccessScope = "public" | "any" | "cluster" | "cluster-scoped" | "own" | "own-scoped" | "site";

/** Per route (by `operationId`), what each role may reach; a role not named is refused. */
export type AccessRules = Readonly<Record<string, Partial<Record<Role, AccessScope>>>>;

/**
 * The rules of every route in `apiRoutes`. A route without an entry is refused to everyone (and
 * fails `authorization.test.ts`), so a new route cannot go out unprotected by accident.
 */
export const accessRules: AccessRules = {
  getHealth: { researcher: "public", platform: "public", collector: "public", scheduler: "public" },
  getReadiness: { researcher: "public", platform: "public", collector: "public", scheduler: "public" },
  getMetrics: { platform: "any" },
  ingestJobRecords: { collector: "cluster", platform: "cluster" },
  listJobs: { researcher: "own-scoped", platform: "cluster-scoped" },
  getJob: { researcher: "own", platform: "cluster" },
  getJobUsage: { researcher: "own", platform: "cluster" },
  getJobEvents: { researcher: "own", platform: "cluster" },
  getDiagnosis: { researcher: "own", platform: "cluster" },
  ingestUsage: { collector: "cluster" },
  ingestNodeEvents: { collector: "cluster" },
  putArtifact: { collector: "cluster", platform: "cluster-scoped", researcher: "own" },
  getArtifact: { platform: "cluster", researcher: "own" },
  createPrediction: { researcher: "own", platform: "cluster", scheduler: "cluster" },
  createPredictionBatch: { researcher: "own", platform: "cluster", scheduler: "cluster" },
  getPrediction: { researcher: "own", platform: "cluster", scheduler: "cluster" },
  getAccuracy: { platform: "cluster-scoped" },
  getWasteReport: { platform: "cluster-scoped" },
  getPolicy: { platform: "any", scheduler: "any" },
  putPolicy: { platform: "site" },
  simulatePolicy: { platform: "cluster-scoped" },
  listPolicyAudit: { platform: "cluster-scoped" },
  admitKubernetesObject: { scheduler: "cluster" },
  adviseSlurmSubmission: { scheduler: "cluster" },
  listClusters: { platform: "cluster-scoped" },
  registerCluster: { platform: "cluster" },
};

/**
 * What a request reaches: the job's user and cluster for reads and predictions, the cluster
 * written to for ingest, the filters of a list. Leave a field out when the request does not name it.
 */
export type AccessTarget = { user?: string; cluster?: string };

/** What an allowed request must still filter its answer to. */
export type VisibleScope = {
  /** Only jobs of this user (researchers listing their jobs). */
  user?: string;
  /** Only these clusters. */
  clusters: "all" | readonly string[];
};

/** The outcome of {@link authorize}. */
export type AccessDecision =
  | { allowed: true; scope: VisibleScope }
  | { allowed: false; status: 401 | 403 | 404; reason: string };

/**
 * Decides whether `principal` may call `route` on `target`. Refusals say how to answer: 401
 * without a principal, 404 when a role may read such resources but not this one (its existence
 * is not revealed), 403 otherwise. An allowed answer carries the scope lists must be filtered to.
 *
 * @example
 * ```ts
 * const route = apiRoutes.find((r) => r.operationId === "getJob")!;
 * const d = authorize(principal, route, { user: job.spec.user, cluster: job.spec.cluster });
 * if (!d.allowed) throw d.status === 404 ? new NotFoundError(...) : new ForbiddenError(d.reason);
 * ```
 */
export function authorize(
  principal: Principal | undefined,
  route: Pick<ApiRoute, "method" | "path" | "operationId" | "roles">,
  target: AccessTarget = {},
  rules: AccessRules = accessRules,
): AccessDecision {
  if (route.roles.length === 0) return { allowed: true, scope: { clusters: "all" } };
  if (!principal) return { allowed: false, status: 401, reason: "A valid bearer token is required" };
  const routeRules = Object.hasOwn(rules, route.operationId) ? rules[route.operationId] : undefined;
  if (!routeRules) return { allowed: false, status: 403, reason: `No access rule for ${route.operationId}` };

  const granted = principal.roles.filter(
    (role) => route.roles.includes(role) && routeRules[role] !== undefined,
  );
  if (granted.length === 0) {
    return {
      allowed: false,
      status: 403,
      reason: `Role ${describeRoles(principal)} may not call ${route.operationId}`,
    };
  }
  const decisions = granted.map((role) => decide(principal, routeRules[role] as AccessScope, target));
  // With several roles the widest allowed answer wins: one without a user filter if any.
  const allowed = decisions.filter((d): d is { allowed: true; scope: VisibleScope } => d.allowed);
  const widest = allowed.find((d) => d.scope.user === undefined) ?? allowed[0];
  if (widest) return widest;
  const reason = decisions.map((d) => (d.allowed ? "" : d.reason)).join("; ");
  const readsOne = route.method === "GET" && route.path.includes("{");
  return { allowed: false, status: readsOne ? 404 : 403, reason };
}

function decide(principal: Principal, scope: AccessScope, target: AccessTarget): AccessDecision {
  const clusters = principal.clusters;
  const deny = (reason: string): AccessDecision => ({ allowed: false, status: 403, reason });
  const clusterOk = (required: boolean): boolean =>
    target.cluster === undefined
      ? !required || clusters === "all"
      : inPrincipalClusters(principal, target.cluster);
  switch (scope) {
    case "public":
    case "any":
      return { allowed: true, scope: { clusters: "all" } };
    case "site":
      return clusters === "all"
        ? { allowed: true, scope: { clusters } }
        : deny("Only principals of every cluster may");
    case "cluster":
    case "cluster-scoped":
      if (!clusterOk(scope === "cluster"))
        return deny(`Cluster ${target.cluster ?? "(none)"} is not one of the caller's`);
      return { allowed: true, scope: { clusters } };
    case "own":
    case "own-scoped": {
      if (!principal.user) return deny("The caller has no user name");
      if (target.user === undefined ? scope === "own" : target.user !== principal.user) {
        return deny("Researchers reach only their own jobs");
      }
      if (!clusterOk(false)) return deny(`Cluster ${target.cluster} is not one of the caller's`);
      return { allowed: true, scope: { user: principal.user, clusters } };
    }
  }
}

function describeRoles(principal: Principal): string {
  return principal.roles.length > 0 ? principal.roles.join(", ") : "(none)";
}

/** True when `route` has an access rule (public routes included). */
export function hasAccessRule(
  route: Pick<ApiRoute, "operationId">,
  rules: AccessRules = accessRules,
): boolean {
  return Object.hasOwn(rules, route.operationId);
}

/**
 * {@link authorize}, throwing the server's errors: 401 {@link UnauthenticatedError}, 404
 * {@link NotFoundError}, 403 {@link ForbiddenError}. Returns the scope answers must be filtered to.
 *
 * @example
 * ```ts
 * const scope = assertAuthorized(request.principal, route, { cluster: query.cluster, user: query.user });
 * const page = await storage.jobs.list({ ...query, user: scope.user ?? query.user });
 * ```
 */
export function assertAuthorized(
  principal: Principal | undefined,
  route: Pick<ApiRoute, "method" | "path" | "operationId" | "roles">,
  target: AccessTarget = {},
  rules: AccessRules = accessRules,
): VisibleScope {
  const decision = authorize(principal, route, target, rules);
  if (decision.allowed) return decision.scope;
  if (decision.status === 401) throw new UnauthenticatedError();
  if (decision.status === 404) throw new NotFoundError(`Not found (${route.operationId})`);
  throw new ForbiddenError(decision.reason);
}
