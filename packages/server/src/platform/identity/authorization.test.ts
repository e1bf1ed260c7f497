import { type ApiRoute, apiRoutes, type Role } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { ForbiddenError, NotFoundError, UnauthenticatedError } from "../../errors.js";
import { accessRules, assertAuthorized, authorize, hasAccessRule } from "./authorization.js";
import type { Principal } from "./principal.js";

// The specification of who may do what, written independently of the rules table: for each route
// and role, which combinations of own/other user and own/other cluster are allowed. A route of
// `apiRoutes` missing here, or in `accessRules`, fails this file.
type Allowed = "always" | "own-cluster" | "own-user-and-cluster" | "all-clusters-only";
const spec: Record<string, Partial<Record<Role, Allowed>>> = {
  getHealth: { researcher: "always", platform: "always", collector: "always", scheduler: "always" },
  getReadiness: { researcher: "always", platform: "always", collector: "always", scheduler: "always" },
  ingestJobRecords: { collector: "own-cluster", platform: "own-cluster" },
  listJobs: { researcher: "own-user-and-cluster", platform: "own-cluster" },
  getJob: { researcher: "own-user-and-cluster", platform: "own-cluster" },
  getJobUsage: { researcher: "own-user-and-cluster", platform: "own-cluster" },
  getJobEvents: { researcher: "own-user-and-cluster", platform: "own-cluster" },
  getDiagnosis: { researcher: "own-user-and-cluster", platform: "own-cluster" },
  ingestUsage: { collector: "own-cluster" },
  ingestNodeEvents: { collector: "own-cluster" },
  putArtifact: { collector: "own-cluster", platform: "own-cluster", researcher: "own-user-and-cluster" },
  getArtifact: { platform: "own-cluster", researcher: "own-user-and-cluster" },
  createPrediction: { researcher: "own-user-and-cluster", platform: "own-cluster", scheduler: "own-cluster" },
  createPredictionBatch: {
    researcher: "own-user-and-cluster",
    platform: "own-cluster",
    scheduler: "own-cluster",
  },
  getPrediction: { researcher: "own-user-and-cluster", platform: "own-cluster", scheduler: "own-cluster" },
  getAccuracy: { platform: "own-cluster" },
  getWasteReport: { platform: "own-cluster" },
  getMetrics: { platform: "always" },
  getPolicy: { platform: "always", scheduler: "always" },
  putPolicy: { platform: "all-clusters-only" },
  simulatePolicy: { platform: "own-cluster" },
  listPolicyAudit: { platform: "own-cluster" },
  admitKubernetesObject: { scheduler: "own-cluster" },
  adviseSlurmSubmission: { scheduler: "own-cluster" },
  listClusters: { platform: "own-cluster" },
  registerCluster: { platform: "own-cluster" },
};

const ROLES: Role[] = ["researcher", "platform", "collector", "scheduler"];
const principal = (role: Role, clusters: Principal["clusters"] = ["hpc1"]): Principal => ({
  subject: `s-${role}`,
  user: "alice",
  roles: [role],
  clusters,
  source: "oidc",
});
const isPublic = (route: ApiRoute) => route.roles.length === 0;

function expectedFor(
  route: ApiRoute,
  role: Role,
  ownUser: boolean,
  ownCluster: boolean,
  allClusters: boolean,
): boolean {
  if (isPublic(route)) return true;
  if (!route.roles.includes(role)) return false;
  switch (spec[route.operationId]?.[role]) {
    case "always":
      return true;
    case "own-cluster":
      return ownCluster || allClusters;
    case "own-user-and-cluster":
      return ownUser && (ownCluster || allClusters);
    case "all-clusters-only":
      return allClusters;
    default:
      return false;
  }
}

describe("the authorisation matrix", () => {
  it("covers every route of apiRoutes, in the specification and in the rules", () => {
    for (const route of apiRoutes) {
      expect(spec, `no specification for ${route.operationId}`).toHaveProperty(route.operationId);
      expect(hasAccessRule(route), `no access rule for ${route.operationId}`).toBe(true);
    }
  });

  it("has rules exactly for the roles the route table allows", () => {
    for (const route of apiRoutes) {
      const ruled = Object.keys(accessRules[route.operationId] ?? {}).sort();
      const expected = isPublic(route) ? [...ROLES].sort() : [...route.roles].sort();
      expect(ruled, route.operationId).toEqual(expected);
    }
    expect(Object.keys(accessRules).sort()).toEqual(apiRoutes.map((r) => r.operationId).sort());
  });

  it("only health and readiness are open without a token", () => {
    const open = apiRoutes.filter((r) => authorize(undefined, r, { cluster: "hpc1", user: "alice" }).allowed);
    expect(open.map((r) => r.path).sort()).toEqual(["/healthz", "/readyz"]);
    for (const route of apiRoutes.filter((r) => !isPublic(r))) {
      expect(authorize(undefined, route, {})).toMatchObject({ allowed: false, status: 401 });
    }
  });

  for (const route of apiRoutes) {
    describe(`${route.method} ${route.path} (${route.operationId})`, () => {
      for (const role of ROLES) {
        for (const allClusters of [false, true]) {
          for (const ownUser of [true, false]) {
            for (const ownCluster of [true, false]) {
              const target = { user: ownUser ? "alice" : "bob", cluster: ownCluster ? "hpc1" : "hpc2" };
              const expected = expectedFor(route, role, ownUser, ownCluster, allClusters);
              const who = `${role}${allClusters ? " of all clusters" : ""}`;
              const what = `${ownUser ? "own" : "other"} user, ${ownCluster ? "own" : "other"} cluster`;
              it(`${expected ? "allows" : "refuses"} ${who} on ${what}`, () => {
                const decision = authorize(principal(role, allClusters ? "all" : ["hpc1"]), route, target);
                expect(decision.allowed).toBe(expected);
                if (!decision.allowed)
                  expect(decision.status).toBe(
                    route.roles.includes(role) && route.method === "GET" && route.path.includes("{")
                      ? 404
                      : 403,
                  );
              });
            }
          }
        }
      }
    });
  }
});

describe("authorize", () => {
  const route = (id: string) => apiRoutes.find((r) => r.operationId === id)!;

  it("scopes a researcher's job list to their own jobs and a platform's to their clusters", () => {
    expect(authorize(principal("researcher"), route("listJobs"), {})).toEqual({
      allowed: true,
      scope: { user: "alice", clusters: ["hpc1"] },
    });
    expect(authorize(principal("platform"), route("listJobs"), {})).toEqual({
      allowed: true,
      scope: { clusters: ["hpc1"] },
    });
  });

  it("refuses a researcher's read of a job without a user, and principals without a user name", () => {
    expect(authorize(principal("researcher"), route("getJob"), { cluster: "hpc1" }).allowed).toBe(false);
    const token: Principal = { subject: "t", roles: ["researcher"], clusters: "all", source: "api-token" };
    expect(authorize(token, route("getJob"), { user: "alice", cluster: "hpc1" }).allowed).toBe(false);
  });

  it("refuses cluster-bound writes that name no cluster unless the principal has every cluster", () => {
    expect(authorize(principal("collector"), route("ingestUsage"), {})).toMatchObject({
      allowed: false,
      status: 403,
    });
    expect(authorize(principal("platform", "all"), route("ingestJobRecords"), {}).allowed).toBe(true);
  });

  it("gives a principal with several roles the widest answer", () => {
    const both: Principal = { ...principal("researcher"), roles: ["researcher", "platform"] };
    expect(authorize(both, route("getJob"), { user: "bob", cluster: "hpc1" })).toEqual({
      allowed: true,
      scope: { clusters: ["hpc1"] },
    });
  });

  it("refuses principals without roles, and routes without rules", () => {
    const none: Principal = { ...principal("researcher"), roles: [] };
    expect(authorize(none, route("getJob"), { user: "alice", cluster: "hpc1" })).toMatchObject({
      status: 403,
    });
    const unknown = {
      method: "GET" as const,
      path: "/v1/new",
      operationId: "newThing",
      roles: ["platform" as Role],
    };
    expect(authorize(principal("platform", "all"), unknown, {})).toMatchObject({
      allowed: false,
      status: 403,
    });
  });

  it("throws the server's errors", () => {
    expect(() => assertAuthorized(undefined, route("getJob"))).toThrow(UnauthenticatedError);
    expect(() =>
      assertAuthorized(principal("researcher"), route("getJob"), { user: "bob", cluster: "hpc1" }),
    ).toThrow(NotFoundError);
    expect(() =>
      assertAuthorized(principal("collector"), route("getJob"), { user: "alice", cluster: "hpc1" }),
    ).toThrow(ForbiddenError);
    expect(assertAuthorized(principal("collector"), route("ingestUsage"), { cluster: "hpc1" })).toEqual({
      clusters: ["hpc1"],
    });
  });
});
