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
   * Whether an artifact lies in a caller's scope: linked to `scope.cluster` when it names one, and
   * for `scope.user` either one of their jobs or, linked to no job, uploaded by them. Job links
   * go by the job's owner, not the uploader, so a user named like a collector's service account
   * does not see what that collector uploaded for other people's jobs.
   *
   * @example
   * ```ts
   * await artifacts.visible(sha256, { user: "alice" }); // true when it belongs to one of alice's jobs
   * ```
   */
  async visible(sha256: string, scope: { user?: string; cluster?: string }): Promise<boolean> {
    const { rows } = await query(
      this.pool,
      `SELECT 1 FROM artifact_links l
       WHERE l.sha256 = $1 AND ($2::text IS NULL OR l.cluster = $2)
         AND ($3::text IS NULL OR (l.job_id = '' AND l.uploaded_by = $3) OR EXISTS (
           SELECT 1 FROM jobs j WHERE j.cluster = l.cluster AND j.job_id = l.job_id AND j.user_name = $3))
       LIMIT 1`,
      [sha256, scope.cluster ?? null, scope.user ?? null],
    );
    return rows.length > 0;
  }
}
