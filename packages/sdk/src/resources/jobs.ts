import type {
  IngestResult,
  JobPage,
  JobRecord,
  JobState,
  NodeEventList,
  UsageSeries,
} from "@jobsight/schemas";
import { newIdempotencyKey } from "../http/idempotency-key.js";
import type { RequestOptions, Transport } from "../http/transport.js";
import { PagedList } from "./paged-list.js";

/** Filters of `GET /v1/jobs` (the keys of the route's query schema). */
export type JobListQuery = {
  cluster?: string;
  user?: string;
  account?: string;
  partition?: string;
  state?: JobState;
  /** Jobs submitted at or after this RFC 3339 time. */
  from?: string;
  /** Jobs submitted before this RFC 3339 time. */
  to?: string;
  /** Page size, 1 to 1000; the server's default is 100. */
  limit?: number;
  /** Start from this cursor (from an earlier page's `nextCursor`). */
  cursor?: string;
};

/** Options of {@link JobsResource.ingest}. */
export type IngestOptions = RequestOptions & {
  /**
   * Records per `POST /v1/jobs` call (the schema allows at most 10,000).
   * @default 1000
   */
  batchSize?: number;
  /** Called after each committed batch, e.g. to drive a progress bar. */
  onBatch?: (sent: number, total: number, result: IngestResult) => void;
};

/** Job records: read them, list them, and send them (history import, schedulers' own feeds). */
export class JobsResource {
  constructor(private readonly transport: Transport) {}

  /**
   * A job's record.
   *
   * @example
   * ```ts
   * const job = await client.jobs.get("4242", { cluster: "hpc1" });
   * ```
   */
  get(jobId: string, query: { cluster?: string } = {}, options?: RequestOptions): Promise<JobRecord> {
    return this.transport.request<JobRecord>({
      operationId: "getJob",
      params: { jobId },
      query: { cluster: query.cluster },
      options,
    });
  }

  /**
   * Jobs, newest first, fetched page by page as they are iterated.
   *
   * @example
   * ```ts
   * for await (const job of client.jobs.list({ user: "alice", state: "OUT_OF_MEMORY" })) console.log(job.jobId);
   * ```
   */
  list(query: JobListQuery = {}, options?: RequestOptions): PagedList<JobRecord> {
    return new PagedList<JobRecord>((cursor) =>
      this.transport.request<JobPage>({
        operationId: "listJobs",
        query: { ...query, cursor: cursor ?? query.cursor },
        options,
      }),
    );
  }

  /**
   * A job's usage time series, optionally downsampled to `stepSeconds` buckets.
   *
   * @example
   * ```ts
   * const series = await client.jobs.usage("4242", { stepSeconds: 60 });
   * ```
   */
  usage(
    jobId: string,
    query: { cluster?: string; stepSeconds?: number } = {},
    options?: RequestOptions,
  ): Promise<UsageSeries> {
    return this.transport.request<UsageSeries>({
      operationId: "getJobUsage",
      params: { jobId },
      query,
      options,
    });
  }

  /**
   * The node events attributed to a job (OOM kills, GPU XID errors, ...).
   *
   * @example
   * ```ts
   * const { events } = await client.jobs.events("4242");
   * ```
   */
  events(jobId: string, query: { cluster?: string } = {}, options?: RequestOptions): Promise<NodeEventList> {
    return this.transport.request<NodeEventList>({
      operationId: "getJobEvents",
      params: { jobId },
      query,
      options,
    });
  }

  /**
   * Send job records in batches. A record is keyed by (cluster, jobId, phase), so a resent batch
   * is stored once: batches carry an idempotency key and are retried like reads. Invalid records
   * of a batch that also holds valid ones are not stored, and come back in `rejected` with their
   * index in `records` (and the field's path under `/records/<index>`); the others are stored.
   *
   * @example
   * ```ts
   * const { accepted, duplicates, rejected } = await client.jobs.ingest(records, { batchSize: 500 });
   * for (const r of rejected ?? []) console.warn(`record ${r.index}: ${r.path}: ${r.message}`);
   * ```
   */
  async ingest(records: JobRecord[], options: IngestOptions = {}): Promise<IngestResult> {
    const batchSize = Math.min(10_000, Math.max(1, options.batchSize ?? 1000));
    const total: IngestResult = { accepted: 0, duplicates: 0 };
    for (let start = 0; start < records.length; start += batchSize) {
      const batch = records.slice(start, start + batchSize);
      const result = await this.transport.request<IngestResult>({
        operationId: "ingestJobRecords",
        body: { records: batch },
        idempotencyKey: newIdempotencyKey(),
        options,
      });
      total.accepted += result.accepted;
      total.duplicates += result.duplicates;
      // Indexes and paths of the batch, made indexes and paths of `records`.
      for (const r of result.rejected ?? []) {
        const head = `/records/${r.index}`;
        const inRecord = r.path === head || r.path.startsWith(`${head}/`);
        const path = inRecord ? `/records/${start + r.index}${r.path.slice(head.length)}` : r.path;
        total.rejected ??= [];
        total.rejected.push({ ...r, index: start + r.index, path });
      }
      options.onBatch?.(start + batch.length, records.length, result);
    }
    return total;
  }
}
