export {
  decodeExportMetricsHttpBody,
  decodeExportMetricsRequest,
  decodeExportMetricsRequestJson,
  decodeExportMetricsResponse,
  decodeExportMetricsResponseJson,
  type OtlpHttpEncoding,
  otlpHttpEncoding,
} from "./decode/decode.js";
export { decodeObservations, describeRejections } from "./decode/decode-observations.js";
export { decodeObservationsProtobuf } from "./decode/decode-observations-protobuf.js";
export type {
  ContainerOnlySample,
  DecodedObservations,
  DecodeObservationsOptions,
  HostOnlySample,
  ObservationRejections,
  RejectedSample,
  SkippedPoints,
  SkipReason,
} from "./decode/decoded-observations.js";
export { MAX_PROTOBUF_DEPTH } from "./decode/protobuf-validate.js";
export {
  JOB_ATTRIBUTE_ORDER,
  type StandardIdentity,
  standardIdentity,
} from "./decode/standard/standard-identity.js";
export { type InputScope, type StandardInput, standardInputs } from "./decode/standard/standard-inputs.js";
export { standardInputsMarkdown } from "./decode/standard/standard-inputs-table.js";
export {
  type AggregateGroupKey,
  type EncodeAggregatedObservationsOptions,
  encodeAggregatedObservations,
} from "./encode/aggregate-observations.js";
export {
  createExportMetricsResponse,
  encodeExportMetricsRequest,
  encodeExportMetricsRequestJson,
  encodeExportMetricsResponse,
  encodeExportMetricsResponseJson,
} from "./encode/encode.js";
export {
  type EncodeObservationsOptions,
  encodeObservations,
  OBSERVATION_MAPPING_VERSION,
} from "./encode/encode-observations.js";
export { observationsToResourceMetrics, toSdkResourceMetrics } from "./encode/to-resource-metrics.js";
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
} from "./grpc/grpc-service.js";
export {
  decodeRejectedSamples,
  encodeRejectedSamples,
  REJECTED_SAMPLES_METADATA_KEY,
  rejectedSampleKey,
} from "./grpc/rejected-samples-metadata.js";
export { anyValueOf, type ScalarAttribute, scalarOf } from "./mapping/attribute-values.js";
export {
  type CgroupJobIdentity,
  jobFromCgroupPath,
  jobFromProcCgroup,
} from "./mapping/cgroup-job-path.js";
export {
  aggregateMetricDefinitions,
  jobMetricDefinitions,
  type MetricDefinition,
} from "./mapping/metric-definitions.js";
export {
  AggregateMetricNames,
  JobMetricNames,
  LegacyJobMetricNames,
  LegacySeriesAttributes,
  type MetricNameSet,
  OBSERVATION_SCOPE_NAME,
  ObservationAttributes,
  SeriesAttributes,
} from "./mapping/metric-names.js";
export { legacyNamesMarkdown, metricTableMarkdown } from "./mapping/metric-table.js";
export { type UsageSampleIdentity, usageSampleKey } from "./mapping/sample-key.js";
export {
  METRICS_EXPORT_PATH,
  METRICS_SERVICE_NAME,
  otlpMessageTypes,
  otlpMetricsDescriptor,
  otlpMetricsRoot,
} from "./otlp/otlp-proto.js";
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
} from "./otlp/otlp-types.js";
export { OtlpAggregationTemporality, OtlpDataPointFlags } from "./otlp/otlp-types.js";
export { canonicalRfc3339, rfc3339ToUnixNano, unixNanoToRfc3339 } from "./otlp/unix-nano.js";
