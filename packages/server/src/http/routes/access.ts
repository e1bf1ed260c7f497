import type { FieldError, JobRecord } from "@jobsight/schemas";
import type { DataPlaneStorage } from "../../data-plane/storage/storage.js";
import { ForbiddenError, JobAmbiguousError, NotFoundError } from "../../errors.js";
import type { Principal } from "../../platform/identity/principal.js";

/** What a caller may read: a researcher only their own jobs; a cluster-bound token one cluster. */
export type ReadScope = { user?: string; cluster?: string };

/**
 * The read scope of a caller, combined with a `cluster` the request asks for. A cluster-bound
 * token asking for another cluster is refused.
 *
 * @example
 * ```ts
 * readScope({ role: "researcher", user: "alice", tokenId: "t", via: "api-token" }); // { user: "alice" }
 * ```
 */
export function readScope(principal: Principal | undefined, requestedCluster?: string): ReadScope {
  if (!principal) throw new ForbiddenError("Authentication required");
  if (principal.cluster && requestedCluster && principal.cluster !== requestedCluster) {
    throw new ForbiddenError(`This token is bound to cluster ${principal.cluster}`, [
      { path: "/query/cluster", message: `must be ${principal.cluster} for this token` },
    ]);
  }
  const scope: ReadScope = {};
  const cluster = requestedCluster ?? principal.cluster;
  if (cluster) scope.cluster = cluster;
  if (principal.role === "researcher") scope.user = principal.user;
  return scope;
}

/**
 * Refuses a batch unless the caller may write every item's cluster: a collector (or any token
 * bound to a cluster) writes only to its own. Lists every offending item.
 *
 * @example
 * ```ts
 * assertWritable(principal, batch.records.map((r) => r.cluster), "/records");
 * ```
 */
export function assertWritable(
  principal: Principal | undefined,
  clusters: readonly string[],
  listPath: string,
): void {
  if (!principal) throw new ForbiddenError("Authentication required");
  const own = principal.cluster;
  if (!own) {
    if (principal.role === "collector")
      throw new ForbiddenError("A collector token must be bound to a cluster");
    return;
  }
  const errors: FieldError[] = [];
  clusters.forEach((cluster, i) => {
    if (cluster !== own)
      errors.push({ path: `${listPath}/${i}/cluster`, message: `must be ${own} for this token` });
  });
  if (errors.length > 0) {
    throw new ForbiddenError(
      `This token may write only to cluster ${own}; ${errors.length} items name another`,
      errors.slice(0, 100),
    );
  }
}

/**
 * The one job a caller means by `jobId` (and optionally `cluster`), if they may see it.
 *
 * @throws {NotFoundError} when there is none visible; {@link JobAmbiguousError} when several clusters have it.
 */
export async function findVisibleJob(
  storage: DataPlaneStorage,
  scope: ReadScope,
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
 * platform caller naming the cluster may read samples that arrived before the job's record.
 */
export async function jobClusterFor(
  storage: DataPlaneStorage,
  scope: ReadScope,
  jobId: string,
): Promise<string> {
  if (scope.cluster && scope.user === undefined) return scope.cluster;
  return (await findVisibleJob(storage, scope, jobId)).cluster;
}
