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
  createExportMetricsResponse,
  encodeExportMetricsRequest,
  encodeExportMetricsRequestJson,
  encodeExportMetricsResponse,
  encodeExportMetricsResponseJson,
} from "./encode.js";
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
