import type { IngestResult, JobPage, JobRecord } from "@jobsight/schemas";
import type pg from "pg";
import {
  type GroupSummary,
  type HistorySummaryOptions,
  historySummaries,
} from "../queries/history-summaries.js";
import {
  countJobs,
  findJobs,
  type JobVisibility,
  type ListJobsOptions,
  listJobs,
} from "../queries/job-queries.js";
import { type ContainerJob, jobsByContainer } from "../queries/jobs-by-container.js";
import { jobsOnNodes, type NodeOccupancy } from "../queries/jobs-on-nodes.js";
import { type LiveJobs, type LiveJobsOptions, liveJobs } from "../queries/live-samples.js";
import { type OomHistoryOptions, type OomKilledJob, oomKilledJobs } from "../queries/oom-history.js";
import { SamplePartitions } from "../queries/sample-partitions.js";
import { applySamplePolicies, type SamplePolicyOptions } from "../queries/sample-policies.js";
import { AlertPreferenceStore } from "../stores/alert-preference-store.js";
import { AlertStore } from "../stores/alert-store.js";
import { AlertActionStore } from "../stores/alerts/alert-action-store.js";
import { type ApiTokenStore, PostgresApiTokenStore } from "../stores/api-token-store.js";
import { ArtifactStore } from "../stores/artifact-store.js";
import { ClusterStore } from "../stores/cluster-store.js";
import { EventStore } from "../stores/event-store.js";
import { upsertJobRecords } from "../stores/job-store.js";
import { SampleStore } from "../stores/sample-store.js";
import { SAMPLE_POLICIES_LOCK, withTryAdvisoryLock } from "./advisory-lock.js";
import type { StorageFlavour } from "./migration-files.js";

/** Job records: ingest and queries. */
export type JobStore = {
  upsert(records: readonly JobRecord[]): Promise<IngestResult>;
  find(jobId: string, filter?: { cluster?: string } & JobVisibility): Promise<JobRecord[]>;
  list(options: ListJobsOptions): Promise<JobPage>;
  count(cluster?: string): Promise<number>;
  /** Jobs on any of `nodes` at some time in `[fromMs, toMs]`, one row per job and node (see `jobsOnNodes`). */
  onNodes(cluster: string, nodes: readonly string[], fromMs: number, toMs: number): Promise<NodeOccupancy[]>;
  /** Jobs whose record lists any of `containerIds`, one row per job and container (see `jobsByContainer`). */
  withContainers(cluster: string, containerIds: readonly string[]): Promise<ContainerJob[]>;
};

/**
 * Everything the data plane stores, behind one object: the interface the routes, the history
 * import and the intelligence plane use (never SQL of their own).
 */
export type DataPlaneStorage = {
  readonly flavour: StorageFlavour;
  readonly pool: pg.Pool;
  readonly jobs: JobStore;
  readonly samples: SampleStore;
  readonly events: EventStore;
  readonly artifacts: ArtifactStore;
  readonly clusters: ClusterStore;
  /** API tokens (the `api_tokens` table): issued, looked up by hash, revoked. */
  readonly tokens: ApiTokenStore;
  /** Live alerts over running jobs: one row per job and rule. */
  readonly alerts: AlertStore;
  /** The audit log of actions under policy (cancellations, holds, dry-run decisions). */
  readonly alertActions: AlertActionStore;
  /** Users' alert preferences (opt-out, channels, quiet hours) and the weekly digests sent. */
  readonly alertPreferences: AlertPreferenceStore;
  /** Per-group history summaries for the predictor. */
  history(options?: HistorySummaryOptions): Promise<GroupSummary[]>;
  /** The recent readings of running jobs, for the live alert rules (bounded). */
  liveJobs(options: LiveJobsOptions): Promise<LiveJobs>;
  /** Recent ended jobs of some users that the memory limit killed (bounded), newest first. */
  oomKilledJobs(options: OomHistoryOptions): Promise<OomKilledJob[]>;
  /** Retention (and, on TimescaleDB, compression) of samples; call at start and periodically. */
  applyPolicies(): Promise<void>;
  /** Throws unless PostgreSQL answers. */
  ping(): Promise<void>;
};

/**
 * Builds the stores over a migrated database.
 *
 * @example
 * ```ts
 * const storage = createDataPlaneStorage(pool, "plain", { retentionDays: 90, compressAfterDays: 7 });
 * await storage.jobs.upsert(records);
 * ```
 */
export function createDataPlaneStorage(
  pool: pg.Pool,
  flavour: StorageFlavour,
  policies: SamplePolicyOptions,
): DataPlaneStorage {
  const partitions = new SamplePartitions(pool);
  return {
    flavour,
    pool,
    jobs: {
      upsert: (records) => upsertJobRecords(pool, records),
      find: (jobId, filter) => findJobs(pool, jobId, filter),
      list: (options) => listJobs(pool, options),
      count: (cluster) => countJobs(pool, cluster),
      onNodes: (cluster, nodes, fromMs, toMs) => jobsOnNodes(pool, cluster, nodes, fromMs, toMs),
      withContainers: (cluster, containerIds) => jobsByContainer(pool, cluster, containerIds),
    },
    samples: new SampleStore(pool, flavour, partitions),
    events: new EventStore(pool),
    artifacts: new ArtifactStore(pool),
    clusters: new ClusterStore(pool),
    tokens: new PostgresApiTokenStore(pool),
    alerts: new AlertStore(pool),
    alertActions: new AlertActionStore(pool),
    alertPreferences: new AlertPreferenceStore(pool),
    history: (options) => historySummaries(pool, options),
    liveJobs: (options) => liveJobs(pool, options),
    oomKilledJobs: (options) => oomKilledJobs(pool, options),
    // One replica at a time: two replacing TimescaleDB's policies together fail on each other.
    applyPolicies: async () => {
      await withTryAdvisoryLock(pool, SAMPLE_POLICIES_LOCK, () =>
        applySamplePolicies(pool, flavour, partitions, policies),
      );
    },
    ping: async () => {
      await pool.query("SELECT 1");
    },
  };
}
