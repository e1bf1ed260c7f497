import type { FieldError, JobRecord } from "@jobsight/schemas";
import type { DataPlaneStorage } from "../../data-plane/storage/storage.js";
import { ForbiddenError, JobAmbiguousError, NotFoundError } from "../../errors.js";
import type { Principal } from "../../platform/identity/principal.js";

/**
 * What a caller may reach, read or write: a researcher only their own jobs (and the samples,
 * events, artifacts, predictions and diagnoses of them); a token bound to a cluster only that one.
 * An absent field does not restrict.
 */
export type AccessScope = { user?: string; cluster?: string };

/** Something a caller may or may not reach: a job, a sample, an event, an artifact, a prediction. */
export type Owned = { cluster: string; user?: string };

/**
 * The one access rule of the REST API: every route that reads or writes a job, an artifact, a
 * prediction or a diagnosis asks this for the caller's scope (combined with a `cluster` the
 * request names) and reaches nothing outside it, through {@link inScope} for objects in hand and
 * as the filter of its store query otherwise. Refuses (403) no caller, a machine token (collector,
 * scheduler) bound to no cluster, and a cluster-bound token naming another cluster.
 *
 * @example
 * ```ts
 * accessScope({ role: "researcher", user: "alice", tokenId: "t", via: "api-token" }); // { user: "alice" }
 * accessScope(hpc2Platform, "hpc1"); // throws ForbiddenError naming /query/cluster
 * ```
 */
export function accessScope(
  principal: Principal | undefined,
  requestedCluster?: string,
  clusterPath = "/query/cluster",
): AccessScope {
  if (!principal) throw new ForbiddenError("Authentication required");
  if ((principal.role === "collector" || principal.role === "scheduler") && !principal.cluster) {
    throw new ForbiddenError(`A ${principal.role} token must be bound to a cluster`);
  }
  if (principal.cluster && requestedCluster !== undefined && principal.cluster !== requestedCluster) {
    throw new ForbiddenError(`This token is bound to cluster ${principal.cluster}`, [
      { path: clusterPath, message: `must be ${principal.cluster} for this token` },
    ]);
  }
  const scope: AccessScope = {};
  const cluster = requestedCluster ?? principal.cluster;
  if (cluster) scope.cluster = cluster;
  if (principal.role === "researcher") scope.user = principal.user;
  return scope;
}

/**
 * Whether `owned` lies in `scope`. An object whose user is unknown is outside a user's scope:
 * ownership is never assumed.
 */
export function inScope(scope: AccessScope, owned: Owned): boolean {
  if (scope.cluster !== undefined && owned.cluster !== scope.cluster) return false;
  return scope.user === undefined || owned.user === scope.user;
}

/** Every field of `items` outside `scope`, at `path(i)/cluster` or `path(i)/user`. */
export function outOfScope(
  scope: AccessScope,
  items: readonly Owned[],
  path: (i: number) => string,
): FieldError[] {
  const errors: FieldError[] = [];
  items.forEach((item, i) => {
    if (scope.cluster !== undefined && item.cluster !== scope.cluster)
      errors.push({ path: `${path(i)}/cluster`, message: `must be ${scope.cluster} for this token` });
    if (scope.user !== undefined && item.user !== scope.user)
      errors.push({ path: `${path(i)}/user`, message: `must be ${scope.user} for this token` });
  });
  return errors;
}

/**
 * Refuses a batch unless every item lies in the caller's {@link accessScope}: a collector (or any
 * token bound to a cluster) writes only to its own cluster, a researcher only their own jobs.
 * Lists every offending item.
 *
 * @example
 * ```ts
 * assertWritable(principal, batch.records.map((r) => ({ cluster: r.cluster, user: r.spec.user })), "/records");
 * ```
 */
export function assertWritable(
  principal: Principal | undefined,
  items: readonly Owned[],
  listPath: string,
  what = "write",
): void {
  const errors = outOfScope(accessScope(principal), items, (i) => `${listPath}/${i}`);
  if (errors.length === 0) return;
  const own = principal?.cluster ? ` only to cluster ${principal.cluster}` : "";
  throw new ForbiddenError(
    `This token may ${what}${own}; ${errors.length} ${errors.length === 1 ? "field names" : "fields name"} another`,
    errors.slice(0, 100),
  );
}

/**
 * The one job a caller means by `jobId` (and optionally `cluster`), if it lies in their scope.
 *
 * @throws {NotFoundError} when there is none visible; {@link JobAmbiguousError} when several clusters have it.
 */
export async function findVisibleJob(
  storage: DataPlaneStorage,
  scope: AccessScope,
  jobId: string,
): Promise<JobRecord> {
  const jobs = await storage.jobs.find(jobId, scope);
  if (jobs.length === 0) throw new NotFoundError(`Job ${jobId} not found`);
  if (jobs.length > 1)
    throw new JobAmbiguousError(
      jobId,
      jobs.map((j) => j.cluster),
    );
  return jobs[0];
}

/**
 * The cluster of a job whose samples or events are asked for. A researcher must own the job; a
 * platform caller naming the cluster in the request may read samples that arrived before the
 * job's record. Without it, the job's record decides, as for `getJob`.
 */
export async function jobClusterFor(
  storage: DataPlaneStorage,
  principal: Principal | undefined,
  jobId: string,
  requestedCluster: string | undefined,
): Promise<string> {
  const scope = accessScope(principal, requestedCluster);
  if (requestedCluster !== undefined && scope.user === undefined) return requestedCluster;
  return (await findVisibleJob(storage, scope, jobId)).cluster;
}
