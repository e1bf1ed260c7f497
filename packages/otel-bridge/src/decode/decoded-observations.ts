import type { UsageSample } from "@jobsight/schemas";

/** Points that did not become part of a sample, and why (reason -> number of points). */
export interface ObservationRejections {
  count: number;
  reasons: Record<string, number>;
}

/** What the decoders (`decodeObservations`, `decodeObservationsProtobuf`) found in one request. */
export interface DecodedObservations {
  /** One sample per (cluster, job, node, step, time), in order of first appearance. */
  samples: UsageSample[];
  /** `keys[i]` is the idempotency key of `samples[i]` (see `usageSampleKey`). */
  keys: string[];
  /** Rejected data points, for the OTLP partial-success response. */
  rejected: ObservationRejections;
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
