import type { UsageSample } from "@jobsight/schemas";

/** Points that did not become part of a sample, and why (reason -> number of points). */
export interface ObservationRejections {
  count: number;
  reasons: Record<string, number>;
}

/**
 * The rejected data points of one sample: the sample's `usageSampleKey` (cluster, job id, node,
 * step and time of its points), how many of its points were rejected, and why the first was.
 */
export interface RejectedSample {
  key: string;
  points: number;
  reason: string;
}

/**
 * Why points were skipped: a metric Jobsight does not read (`unknown_metric`), a standard input
 * whose resource names no job Jobsight can find (`unattributed`), one that names a `container.id`
 * but no pod or job and that no job record lists (`container_unmapped`; without the
 * `containerOnly` option, any such point), a point of a standard input that feeds no sample field
 * (`not_applicable`, e.g. `cpu.mode` `idle`), or, from Jobsight's receiver, a node-wide point
 * (`host.name` only) read while the node was not one job's alone (`node_shared`) or while no job
 * record put a running job on it (`no_job_on_node`: none ran, or its record had not arrived).
 */
export type SkipReason =
  | "unknown_metric"
  | "unattributed"
  | "container_unmapped"
  | "not_applicable"
  | "node_shared"
  | "no_job_on_node";

/**
 * A sample of node-wide standard inputs (`system.*`, `hw.gpu.*`) whose points name no job, only
 * their node (`host.name`): its `jobId` is `""` until the caller, who holds the job records, sets
 * it to the job that had the node alone at `sample.time`. `metrics` counts its points by metric
 * name, for counting them as skipped when no job had the node alone.
 */
export interface HostOnlySample {
  sample: UsageSample;
  metrics: Record<string, number>;
}

/**
 * A sample of container- or process-scope standard inputs (`container.*`, `process.*`) whose points
 * name no job, only their container (`container.id`): its `jobId` is `""` (and its `node` too when
 * the points name none) until the caller, who holds the job records, sets it to the job whose
 * record lists `containerId`; it has no `user` (the job's is the one to use). Its step is
 * `k8s.container.name`, else `container.name`. `metrics` counts its points by metric name, for
 * counting them as skipped when no record lists the container.
 */
export interface ContainerOnlySample {
  sample: UsageSample;
  /** The runtime id as job records list it: lower-case hex, without `containerd://` and the like. */
  containerId: string;
  metrics: Record<string, number>;
}

/**
 * Points left aside without an error: they are not rejections (the OTLP answer does not count
 * them), since a site's gateway sends whatever its receivers scrape and most of it is not for
 * Jobsight. Counted by reason, then metric name.
 */
export interface SkippedPoints {
  count: number;
  byReason: Partial<Record<SkipReason, Record<string, number>>>;
}

/** What the decoders (`decodeObservations`, `decodeObservationsProtobuf`) found in one request. */
export interface DecodedObservations {
  /** One sample per (cluster, job, node, step, time), in order of first appearance. */
  samples: UsageSample[];
  /** `keys[i]` is the idempotency key of `samples[i]` (see `usageSampleKey`). */
  keys: string[];
  /** Rejected data points, for the OTLP partial-success response. */
  rejected: ObservationRejections;
  /**
   * The rejected points that name a sample (cluster, job id, node and time), by sample, for the
   * first 1000 such samples; their `points` add up to `rejected.count` less the points that name
   * none (of unknown metrics, or missing an identity attribute) and those of further samples.
   */
  rejectedSamples: RejectedSample[];
  /** Points skipped without an error (unknown metrics, unattributed standard inputs). */
  skipped: SkippedPoints;
  /**
   * With the `hostOnly` option: the samples of node-wide points that name only their node, for
   * the caller to attribute (their points are in neither `skipped` nor `rejected` yet).
   */
  hostOnly?: HostOnlySample[];
  /**
   * With the `containerOnly` option: the samples of container and process points that name only
   * their `container.id`, for the caller to attribute (their points are in neither `skipped` nor
   * `rejected` yet).
   */
  containerOnly?: ContainerOnlySample[];
}

/** Options of the decoders (`decodeObservations`, `decodeObservationsProtobuf`). */
export interface DecodeObservationsOptions {
  /**
   * Distinct rejection reasons kept; further ones are counted under "other reasons".
   * @default 20
   */
  maxReasons?: number;
  /**
   * The only cluster whose points are accepted (the sender's, e.g. its token's); points naming
   * another `jobsight.cluster` are rejected one by one. Absent: any cluster.
   * @default undefined
   */
  cluster?: string;
  /**
   * Keep node-wide standard inputs (`system.*`, `hw.gpu.*`) whose points name only their node
   * (`host.name`, no job) as {@link DecodedObservations.hostOnly} samples, for a caller that can
   * tell which job had the node alone then; otherwise they are skipped as `unattributed`.
   * @default false
   */
  hostOnly?: boolean;
  /**
   * Keep container- and process-scope standard inputs (`container.*`, `process.*`) whose points name
   * only their `container.id` (no pod, no job; a runtime prefix such as `containerd://` is
   * stripped) as {@link DecodedObservations.containerOnly} samples, for a caller that can tell
   * which job's pod ran the container (Jobsight's receiver: `JobRecord.containerIds`); otherwise
   * they are skipped as `container_unmapped`.
   * @default false
   */
  containerOnly?: boolean;
}
