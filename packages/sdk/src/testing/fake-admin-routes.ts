import {
  type ApiToken,
  type ApiTokenRequest,
  type ModelChange,
  type ModelStatus,
  ROLES,
  type UserSummary,
} from "@jobsight/schemas";
import { apiError, type FakeAnswer, type FakeRouteContext } from "./fake-route-context.js";

const ok = (json: unknown, status = 200): FakeAnswer => ({ status, json });

const unknownCluster = (cluster: string, path: string) =>
  apiError(404, "UNKNOWN_CLUSTER", `${path}: ${cluster} is not a registered cluster`, {
    errors: [{ path, message: `${cluster} is not a registered cluster` }],
  });

const invalid = (path: string, message: string) =>
  apiError(400, "VALIDATION_FAILED", `${path}: ${message}`, { errors: [{ path, message }] });

/** `DELETE /v1/clusters/{clusterId}`: like the server, refuses a cluster with jobs unless forced. */
export function fakeRemoveCluster(ctx: FakeRouteContext): FakeAnswer {
  const id = ctx.params.clusterId;
  const cluster = ctx.store.clusters.get(id);
  if (!cluster) return unknownCluster(id, "/params/clusterId");
  const jobs = [...ctx.store.jobs.values()].filter((j) => j.cluster === id).length;
  if (jobs > 0 && ctx.query.force !== true)
    return apiError(409, "CLUSTER_HAS_JOBS", `Cluster ${id} has ${jobs} recorded jobs: pass force=true`);
  let revokedTokens = 0;
  for (const token of ctx.store.tokens) {
    if (token.cluster === id && !token.revokedAt) {
      token.revokedAt = ctx.now().toISOString();
      revokedTokens++;
    }
  }
  ctx.store.clusters.delete(id);
  return ok({ cluster, jobs, revokedTokens });
}

/** `POST /v1/tokens`: the server's rules for who a token is for, a made-up secret. */
export function fakeCreateToken(ctx: FakeRouteContext): FakeAnswer {
  const body = ctx.body as ApiTokenRequest;
  const machine = body.role === "collector" || body.role === "scheduler";
  if (machine && !body.cluster) return invalid("/cluster", "An API token must be bound to a cluster");
  if (!machine && !body.user) return invalid("/user", `A ${body.role} token must name the user it acts as`);
  if (body.role === "admin" && body.cluster)
    return invalid("/cluster", "An admin token is site-wide; it cannot be bound to a cluster");
  if (body.cluster && !ctx.store.clusters.has(body.cluster)) return unknownCluster(body.cluster, "/cluster");
  const n = ctx.store.tokens.length + 1;
  const token = `jst_fake${String(n).padStart(39, "0")}`;
  const apiToken: ApiToken = {
    id: `token-${n}`,
    prefix: token.slice(0, 12),
    role: body.role,
    ...(body.cluster ? { cluster: body.cluster } : {}),
    ...(body.user ? { user: body.user } : {}),
    ...(body.label ? { label: body.label } : {}),
    createdAt: ctx.now().toISOString(),
  };
  ctx.store.tokens.unshift(apiToken);
  return ok({ token, apiToken }, 201);
}

/** `DELETE /v1/tokens/{tokenId}`. */
export function fakeRevokeToken(ctx: FakeRouteContext): FakeAnswer {
  const token = ctx.store.tokens.find((t) => t.id === ctx.params.tokenId);
  if (!token) return apiError(404, "NOT_FOUND", `API token ${ctx.params.tokenId} not found`);
  token.revokedAt ??= ctx.now().toISOString();
  return ok(token);
}

/** `GET /v1/users`: users of the stored jobs and of the live tokens. */
export function fakeListUsers(ctx: FakeRouteContext): FakeAnswer {
  const cluster = ctx.query.cluster as string | undefined;
  const users = new Map<string, UserSummary>();
  const get = (user: string) => {
    const known = users.get(user) ?? { user, clusters: [], jobs: 0, liveTokens: 0, tokenRoles: [] };
    users.set(user, known);
    return known;
  };
  for (const job of ctx.store.jobs.values()) {
    if (cluster && job.cluster !== cluster) continue;
    const u = get(job.spec.user);
    u.jobs++;
    if (!u.clusters.includes(job.cluster)) u.clusters.push(job.cluster);
    if (!u.lastSubmittedAt || Date.parse(job.submittedAt) > Date.parse(u.lastSubmittedAt))
      u.lastSubmittedAt = job.submittedAt;
  }
  for (const token of ctx.store.tokens) {
    if (token.revokedAt || !token.user || (cluster && token.cluster && token.cluster !== cluster)) continue;
    const u = get(token.user);
    u.liveTokens++;
    if (!u.tokenRoles.includes(token.role)) u.tokenRoles.push(token.role);
  }
  const list = [...users.values()].sort((a, b) => (a.user < b.user ? -1 : 1));
  for (const u of list) {
    u.clusters.sort();
    u.tokenRoles.sort((a, b) => ROLES.indexOf(a) - ROLES.indexOf(b));
  }
  return ok({ users: list });
}

function modelStatus(ctx: FakeRouteContext): ModelStatus {
  const active = ctx.store.models.find((m) => m.status === "active")?.version ?? null;
  return { activeVersion: active, servedVersion: active, models: ctx.store.models };
}

/** `GET /v1/models`: the models tests seeded (the fake trains none). */
export function fakeModelStatus(ctx: FakeRouteContext): FakeAnswer {
  return ok(modelStatus(ctx));
}

function activate(
  ctx: FakeRouteContext,
  version: string,
  previousStatus: "retired" | "rolled_back",
): ModelChange {
  const previous = ctx.store.models.find((m) => m.status === "active");
  if (previous) previous.status = previousStatus;
  const next = ctx.store.models.find((m) => m.version === version)!;
  next.status = "active";
  next.activatedAt = ctx.now().toISOString();
  return { previousVersion: previous?.version ?? null, activeVersion: version, servedVersion: version };
}

/** `POST /v1/models/{version}/promote`. */
export function fakePromoteModel(ctx: FakeRouteContext): FakeAnswer {
  const version = ctx.params.version;
  const model = ctx.store.models.find((m) => m.version === version);
  if (!model) return apiError(404, "NOT_FOUND", `Model ${version} not found`);
  if (model.status === "active")
    return ok({ previousVersion: version, activeVersion: version, servedVersion: version });
  return ok(activate(ctx, version, "retired"));
}

/** `POST /v1/models/rollback`: back to the most recently activated retired version. */
export function fakeRollbackModel(ctx: FakeRouteContext): FakeAnswer {
  const active = ctx.store.models.find((m) => m.status === "active");
  const earlier = ctx.store.models
    .filter(
      (m) =>
        m.status === "retired" &&
        m.activatedAt &&
        (!active?.activatedAt || m.activatedAt < active.activatedAt),
    )
    .sort((a, b) => (a.activatedAt! < b.activatedAt! ? 1 : -1))[0];
  if (!earlier)
    return apiError(409, "NO_EARLIER_MODEL", `No model was in service before ${active?.version ?? "now"}`);
  return ok(activate(ctx, earlier.version, "rolled_back"));
}
