import type { Artifact } from "@jobsight/schemas";
import type pg from "pg";
import { query, withTransaction } from "../storage/database.js";

/** A stored object and what it was uploaded as. */
export type ArtifactLink = {
  sha256: string;
  sizeBytes: number;
  contentType: string;
  kind: Artifact["kind"];
  cluster?: string;
  jobId?: string;
  /** User of the token that uploaded it. */
  uploadedBy: string;
};

const TIME = `to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Artifact metadata: which object is which kind of file of which job, and who may read it. */
export class ArtifactStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Records an artifact whose bytes are already in the object store; idempotent.
   *
   * @example
   * ```ts
   * const artifact = await artifacts.link({ sha256, sizeBytes, contentType: "text/x-shellscript", kind: "script", uploadedBy: "alice" });
   * ```
   */
  link(link: ArtifactLink): Promise<Artifact> {
    return withTransaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO artifacts (sha256, size_bytes, content_type) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING`,
        [link.sha256, link.sizeBytes, link.contentType],
      );
      await client.query(
        `INSERT INTO artifact_links (sha256, kind, cluster, job_id, uploaded_by) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING`,
        [link.sha256, link.kind, link.cluster ?? "", link.jobId ?? "", link.uploadedBy],
      );
      const { rows } = await client.query<{ created_at: string; content_type: string }>(
        `SELECT ${TIME} AS created_at, a.content_type FROM artifacts a WHERE a.sha256 = $1`,
        [link.sha256],
      );
      const artifact: Artifact = {
        sha256: link.sha256,
        kind: link.kind,
        sizeBytes: link.sizeBytes,
        contentType: rows[0].content_type,
        createdAt: rows[0].created_at,
      };
      if (link.cluster) artifact.cluster = link.cluster;
      if (link.jobId) artifact.jobId = link.jobId;
      return artifact;
    });
  }

  /** Content type of a recorded artifact, or `undefined` when there is none. */
  async contentType(sha256: string): Promise<string | undefined> {
    const { rows } = await query<{ content_type: string }>(
      this.pool,
      "SELECT content_type FROM artifacts WHERE sha256 = $1",
      [sha256],
    );
    return rows[0]?.content_type;
  }

  /**
   * Whether a user may read an artifact: they uploaded it, or it belongs to one of their jobs.
   * (Platform tokens are checked by cluster instead; see {@link visibleToCluster}.)
   */
  async visibleToUser(sha256: string, user: string): Promise<boolean> {
    const { rows } = await query(
      this.pool,
      `SELECT 1 FROM artifact_links l
       WHERE l.sha256 = $1 AND (l.uploaded_by = $2 OR EXISTS (
         SELECT 1 FROM jobs j WHERE j.cluster = l.cluster AND j.job_id = l.job_id AND j.user_name = $2))
       LIMIT 1`,
      [sha256, user],
    );
    return rows.length > 0;
  }

  /** Whether an artifact is linked to a cluster (for platform tokens bound to one). */
  async visibleToCluster(sha256: string, cluster: string): Promise<boolean> {
    const { rows } = await query(
      this.pool,
      "SELECT 1 FROM artifact_links WHERE sha256 = $1 AND cluster = $2 LIMIT 1",
      [sha256, cluster],
    );
    return rows.length > 0;
  }
}
