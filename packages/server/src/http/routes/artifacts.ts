import type { Artifact } from "@jobsight/schemas";
import { NotFoundError, ValidationError } from "../../errors.js";
import { assertWritable } from "./access.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

type PutQuery = { kind: Artifact["kind"]; cluster?: string; jobId?: string };

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
      const cluster = query.cluster ?? principal?.cluster;
      if (cluster) assertWritable(principal, [cluster], "/query");
      else if (principal?.role === "collector") assertWritable(principal, [""], "/query");
      const header = request.headers["content-type"]?.split(";")[0].trim().toLowerCase();
      const contentType = header && CONTENT_TYPE.test(header) ? header : "application/octet-stream";
      const stored = await deps.ingestGate.run(() => deps.objectStore.put(body));
      return deps.storage.artifacts.link({
        sha256: stored.sha256,
        sizeBytes: stored.sizeBytes,
        contentType,
        kind: query.kind,
        cluster,
        jobId: query.jobId,
        uploadedBy: principal?.user ?? "anonymous",
      });
    },
    getArtifact: async ({ params, principal, reply }: RouteContext<unknown, unknown, { sha256: string }>) => {
      const notFound = () => new NotFoundError(`Artifact ${params.sha256} not found`);
      let visible: boolean;
      if (principal?.role === "researcher")
        visible = await deps.storage.artifacts.visibleToUser(params.sha256, principal.user);
      else if (principal?.cluster)
        visible = await deps.storage.artifacts.visibleToCluster(params.sha256, principal.cluster);
      else visible = (await deps.storage.artifacts.contentType(params.sha256)) !== undefined;
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
