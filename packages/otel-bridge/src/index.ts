export {
  type AggregateGroupKey,
  type EncodeAggregatedObservationsOptions,
  encodeAggregatedObservations,
} from "./aggregate-observations.js";
export { anyValueOf, type ScalarAttribute, scalarOf } from "./attribute-values.js";
export {
  decodeExportMetricsHttpBody,
  decodeExportMetricsRequest,
  decodeExportMetricsRequestJson,
  decodeExportMetricsResponse,
  decodeExportMetricsResponseJson,
  type OtlpHttpEncoding,
  otlpHttpEncoding,
} from "./decode.js";
export {
  type DecodedObservations,
  type DecodeObservationsOptions,
  decodeObservations,
  describeRejections,
  type ObservationRejections,
} from "./decode-observations.js";
export { decodeObservationsProtobuf } from "./decode-observations-protobuf.js";
export {
  createExportMetricsResponse,
  encodeExportMetricsRequest,
  encodeExportMetricsRequestJson,
  encodeExportMetricsResponse,
  encodeExportMetricsResponseJson,
} from "./encode.js";
export {
  type EncodeObservationsOptions,
  encodeObservations,
  OBSERVATION_MAPPING_VERSION,
} from "./encode-observations.js";
export {
  ObservationEncodeError,
  OtelBridgeError,
  type OtelBridgeErrorCode,
  OtlpDecodeError,
  otelBridgeErrorCatalogue,
} from "./errors.js";
export {
  createMetricsServiceImplementation,
  type IncomingMetricsExport,
  type MetricsExportContext,
  type MetricsServiceImplementationOptions,
  metricsServiceDefinition,
} from "./grpc-service.js";
export {
  AggregateMetricNames,
  aggregateMetricDefinitions,
  JobMetricNames,
  jobMetricDefinitions,
  type MetricDefinition,
  OBSERVATION_SCOPE_NAME,
  ObservationAttributes,
  SeriesAttributes,
} from "./metric-names.js";
export { metricTableMarkdown } from "./metric-table.js";
export {
  METRICS_EXPORT_PATH,
  METRICS_SERVICE_NAME,
  otlpMessageTypes,
  otlpMetricsDescriptor,
  otlpMetricsRoot,
} from "./otlp-proto.js";
export type {
  AnyValue,
  ArrayAnyValue,
  ArrayValue,
  BoolAnyValue,
  BytesAnyValue,
  DoubleAnyValue,
  EmptyAnyValue,
  EntityRef,
  Exemplar,
  ExponentialHistogram,
  ExponentialHistogramBuckets,
  ExponentialHistogramDataPoint,
  ExportMetricsPartialSuccess,
  ExportMetricsServiceRequest,
  ExportMetricsServiceResponse,
  Gauge,
  Histogram,
  HistogramDataPoint,
  InstrumentationScope,
  IntAnyValue,
  KeyValue,
  KeyValueList,
  KvlistAnyValue,
  Metric,
  NumberDataPoint,
  Resource,
  ResourceMetrics,
  ScopeMetrics,
  StringAnyValue,
  Sum,
  Summary,
  SummaryDataPoint,
  ValueAtQuantile,
} from "./otlp-types.js";
export { OtlpAggregationTemporality, OtlpDataPointFlags } from "./otlp-types.js";
export { MAX_PROTOBUF_DEPTH } from "./protobuf-validate.js";
export { type UsageSampleIdentity, usageSampleKey } from "./sample-key.js";
export { observationsToResourceMetrics, toSdkResourceMetrics } from "./to-resource-metrics.js";
export { canonicalRfc3339, rfc3339ToUnixNano, unixNanoToRfc3339 } from "./unix-nano.js";
