import type { Artifact } from "@jobsight/schemas";
import { NotFoundError, ValidationError } from "../../errors.js";
import type { Principal } from "../../platform/identity/principal.js";
import { accessScope, findVisibleJob } from "./access.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

type PutQuery = { kind: Artifact["kind"]; cluster?: string; jobId?: string };

/**
 * Where an upload is linked, within the caller's scope: a researcher attaches files only to a job
 * of theirs (its record decides the cluster), a cluster-bound token only to its cluster, the
 * site-wide platform role anywhere. Without a job id the file is linked to the cluster alone.
 */
async function uploadTarget(
  deps: RouteDeps,
  principal: Principal | undefined,
  query: PutQuery,
): Promise<{ cluster?: string; jobId?: string }> {
  const scope = accessScope(principal, query.cluster);
  if (query.jobId !== undefined && scope.user !== undefined) {
    const job = await findVisibleJob(deps.storage, scope, query.jobId);
    return { cluster: job.cluster, jobId: job.jobId };
  }
  return { cluster: scope.cluster, jobId: query.jobId };
}

const CONTENT_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i;

/**
 * Artifacts (submission scripts, manifests, log excerpts, models): the bytes go to the object
 * store under their sha256 (stored once, however often uploaded), the metadata to PostgreSQL.
 */
export function artifactRoutes(deps: RouteDeps): RouteHandlers {
  return {
    putArtifact: async ({ body, query, principal, request }: RouteContext<Buffer | undefined, PutQuery>) => {
      if (!Buffer.isBuffer(body) || body.length === 0) {
        throw new ValidationError([
          { path: "", message: "The artifact's bytes are required (an empty body is not an artifact)" },
        ]);
      }
      const { cluster, jobId } = await uploadTarget(deps, principal, query);
      const header = request.headers["content-type"]?.split(";")[0].trim().toLowerCase();
      const contentType = header && CONTENT_TYPE.test(header) ? header : "application/octet-stream";
      const stored = await deps.ingestGate.run(() => deps.objectStore.put(body));
      return deps.storage.artifacts.link({
        sha256: stored.sha256,
        sizeBytes: stored.sizeBytes,
        contentType,
        kind: query.kind,
        cluster,
        jobId,
        uploadedBy: principal?.user ?? "anonymous",
      });
    },
    getArtifact: async ({ params, principal, reply }: RouteContext<unknown, unknown, { sha256: string }>) => {
      const notFound = () => new NotFoundError(`Artifact ${params.sha256} not found`);
      const visible = await deps.storage.artifacts.visible(params.sha256, accessScope(principal));
      if (!visible) throw notFound();
      const contentType =
        (await deps.storage.artifacts.contentType(params.sha256)) ?? "application/octet-stream";
      const stream = await deps.objectStore.get(params.sha256);
      if (!stream) throw notFound();
      reply.type(contentType).header("cache-control", "private, max-age=31536000, immutable");
      return stream;
    },
  };
}
