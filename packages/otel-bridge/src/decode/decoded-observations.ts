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
 * whose resource names no job Jobsight can find (`unattributed`), or a point of a standard input
 * that feeds no sample field (`not_applicable`, e.g. `cpu.mode` `idle`).
 */
export type SkipReason = "unknown_metric" | "unattributed" | "not_applicable";

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
}
