/**
 * Plain TypeScript shapes of the OTLP metrics messages, as `decode.ts` returns them and
 * `encode.ts` accepts them.
 *
 * Keys are the OTLP/JSON (lowerCamelCase) names. Every 64-bit integer is a `bigint` because
 * nanosecond timestamps (~1.7e18) do not fit a double. Absent proto3 scalars read as their
 * default (`""`, `0`, `0n`, `false`, `[]`); message fields and `optional` scalars are
 * `undefined` when absent. A oneof sets at most one of its members.
 */

/**
 * OTLP `AggregationTemporality` enum values (metrics.proto). Not the same numbers as the
 * `AggregationTemporality` enum of `@opentelemetry/sdk-metrics` (DELTA = 0 there).
 */
export const OtlpAggregationTemporality = {
  UNSPECIFIED: 0,
  DELTA: 1,
  CUMULATIVE: 2,
} as const;
export type OtlpAggregationTemporality =
  (typeof OtlpAggregationTemporality)[keyof typeof OtlpAggregationTemporality];

/** `DataPointFlags` bit masks (metrics.proto). */
export const OtlpDataPointFlags = {
  DO_NOT_USE: 0,
  NO_RECORDED_VALUE_MASK: 1,
} as const;

export interface StringAnyValue {
  stringValue: string;
}
export interface BoolAnyValue {
  boolValue: boolean;
}
export interface IntAnyValue {
  intValue: bigint;
}
export interface DoubleAnyValue {
  doubleValue: number;
}
export interface ArrayAnyValue {
  arrayValue: ArrayValue;
}
export interface KvlistAnyValue {
  kvlistValue: KeyValueList;
}
export interface BytesAnyValue {
  bytesValue: Uint8Array;
}
/** An AnyValue with no member set: OTLP calls it "empty", and it is a valid value. */
export type EmptyAnyValue = Record<string, never>;

/** `common.v1.AnyValue`: exactly one member set, or none (empty). Narrow with `"stringValue" in v`. */
export type AnyValue =
  | StringAnyValue
  | BoolAnyValue
  | IntAnyValue
  | DoubleAnyValue
  | ArrayAnyValue
  | KvlistAnyValue
  | BytesAnyValue
  | EmptyAnyValue;

export interface ArrayValue {
  values: AnyValue[];
}

export interface KeyValueList {
  values: KeyValue[];
}

export interface KeyValue {
  key: string;
  /** Absent on the wire means an empty AnyValue. */
  value: AnyValue;
}

export interface InstrumentationScope {
  name: string;
  version: string;
  attributes: KeyValue[];
  droppedAttributesCount: number;
}

export interface EntityRef {
  schemaUrl: string;
  type: string;
  idKeys: string[];
  descriptionKeys: string[];
}

export interface Resource {
  attributes: KeyValue[];
  droppedAttributesCount: number;
  entityRefs: EntityRef[];
}

export interface Exemplar {
  filteredAttributes: KeyValue[];
  timeUnixNano: bigint;
  asDouble?: number;
  asInt?: bigint;
  /** 8 bytes when set; hex in OTLP/JSON. */
  spanId: Uint8Array;
  /** 16 bytes when set; hex in OTLP/JSON. */
  traceId: Uint8Array;
}

export interface NumberDataPoint {
  attributes: KeyValue[];
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  /** Set when the value is a double (oneof `value`). */
  asDouble?: number;
  /** Set when the value is an integer (oneof `value`). */
  asInt?: bigint;
  exemplars: Exemplar[];
  flags: number;
}

export interface HistogramDataPoint {
  attributes: KeyValue[];
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  count: bigint;
  sum?: number;
  bucketCounts: bigint[];
  explicitBounds: number[];
  exemplars: Exemplar[];
  flags: number;
  min?: number;
  max?: number;
}

export interface ExponentialHistogramBuckets {
  offset: number;
  bucketCounts: bigint[];
}

export interface ExponentialHistogramDataPoint {
  attributes: KeyValue[];
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  count: bigint;
  sum?: number;
  scale: number;
  zeroCount: bigint;
  positive?: ExponentialHistogramBuckets;
  negative?: ExponentialHistogramBuckets;
  flags: number;
  exemplars: Exemplar[];
  min?: number;
  max?: number;
  zeroThreshold: number;
}

export interface ValueAtQuantile {
  quantile: number;
  value: number;
}

export interface SummaryDataPoint {
  attributes: KeyValue[];
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  count: bigint;
  sum: number;
  quantileValues: ValueAtQuantile[];
  flags: number;
}

export interface Gauge {
  dataPoints: NumberDataPoint[];
}

export interface Sum {
  dataPoints: NumberDataPoint[];
  aggregationTemporality: number;
  isMonotonic: boolean;
}

export interface Histogram {
  dataPoints: HistogramDataPoint[];
  aggregationTemporality: number;
}

export interface ExponentialHistogram {
  dataPoints: ExponentialHistogramDataPoint[];
  aggregationTemporality: number;
}

export interface Summary {
  dataPoints: SummaryDataPoint[];
}

/** `metrics.v1.Metric`: at most one of the `data` oneof members is set. */
export interface Metric {
  name: string;
  description: string;
  unit: string;
  gauge?: Gauge;
  sum?: Sum;
  histogram?: Histogram;
  exponentialHistogram?: ExponentialHistogram;
  summary?: Summary;
  metadata: KeyValue[];
}

export interface ScopeMetrics {
  scope?: InstrumentationScope;
  metrics: Metric[];
  schemaUrl: string;
}

export interface ResourceMetrics {
  resource?: Resource;
  scopeMetrics: ScopeMetrics[];
  schemaUrl: string;
}

/** `collector.metrics.v1.ExportMetricsServiceRequest`. */
export interface ExportMetricsServiceRequest {
  resourceMetrics: ResourceMetrics[];
}

/** `collector.metrics.v1.ExportMetricsPartialSuccess`. */
export interface ExportMetricsPartialSuccess {
  rejectedDataPoints: bigint;
  errorMessage: string;
}

/** `collector.metrics.v1.ExportMetricsServiceResponse`. */
export interface ExportMetricsServiceResponse {
  partialSuccess?: ExportMetricsPartialSuccess;
}
