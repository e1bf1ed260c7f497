import type {
  Exemplar,
  ExponentialHistogramBuckets,
  ExponentialHistogramDataPoint,
  ExportMetricsServiceRequest,
  ExportMetricsServiceResponse,
  HistogramDataPoint,
  Metric,
  NumberDataPoint,
  ResourceMetrics,
  ScopeMetrics,
  SummaryDataPoint,
} from "../otlp/otlp-types.js";
import { EMPTY, each, oneOf, own, readAttributes, readResource, readScope } from "./read-common.js";
import {
  readBool,
  readBytes,
  readDouble,
  readEnum,
  readInt32,
  readInt64,
  readObject,
  readOptionalDouble,
  readString,
  readUint32,
  readUint64,
} from "./read-scalars.js";

/**
 * Turns the loose object form of an OTLP metrics message (protobufjs `toObject` output or
 * parsed OTLP/JSON) into the typed shapes of `otlp-types.ts`, checking every field's type.
 * Unknown keys are ignored, as the OTLP/JSON rules require.
 */

const temporalityNames = {
  AGGREGATION_TEMPORALITY_UNSPECIFIED: 0,
  AGGREGATION_TEMPORALITY_DELTA: 1,
  AGGREGATION_TEMPORALITY_CUMULATIVE: 2,
} as const;

function readExemplar(raw: unknown, path: string): Exemplar {
  const o = readObject(raw, path) ?? EMPTY;
  const out: Exemplar = {
    filteredAttributes: readAttributes(o.filteredAttributes, `${path}.filteredAttributes`),
    timeUnixNano: readUint64(o.timeUnixNano, `${path}.timeUnixNano`),
    spanId: readBytes(o.spanId, `${path}.spanId`, "hex"),
    traceId: readBytes(o.traceId, `${path}.traceId`, "hex"),
  };
  const member = oneOf(o, path, ["asDouble", "asInt"]);
  if (member === "asDouble") out.asDouble = readDouble(o.asDouble, `${path}.asDouble`);
  if (member === "asInt") out.asInt = readInt64(o.asInt, `${path}.asInt`);
  return out;
}

function readExemplars(raw: unknown, path: string): Exemplar[] {
  return each(raw, path, readExemplar);
}

function readNumberPoint(raw: unknown, path: string): NumberDataPoint {
  const o = readObject(raw, path) ?? EMPTY;
  const out: NumberDataPoint = {
    attributes: readAttributes(o.attributes, `${path}.attributes`),
    startTimeUnixNano: readUint64(o.startTimeUnixNano, `${path}.startTimeUnixNano`),
    timeUnixNano: readUint64(o.timeUnixNano, `${path}.timeUnixNano`),
    exemplars: readExemplars(o.exemplars, `${path}.exemplars`),
    flags: readUint32(o.flags, `${path}.flags`),
  };
  const member = oneOf(o, path, ["asDouble", "asInt"]);
  if (member === "asDouble") out.asDouble = readDouble(o.asDouble, `${path}.asDouble`);
  if (member === "asInt") out.asInt = readInt64(o.asInt, `${path}.asInt`);
  return out;
}

function readHistogramPoint(raw: unknown, path: string): HistogramDataPoint {
  const o = readObject(raw, path) ?? EMPTY;
  const out: HistogramDataPoint = {
    attributes: readAttributes(o.attributes, `${path}.attributes`),
    startTimeUnixNano: readUint64(o.startTimeUnixNano, `${path}.startTimeUnixNano`),
    timeUnixNano: readUint64(o.timeUnixNano, `${path}.timeUnixNano`),
    count: readUint64(o.count, `${path}.count`),
    bucketCounts: each(o.bucketCounts, `${path}.bucketCounts`, readUint64),
    explicitBounds: each(o.explicitBounds, `${path}.explicitBounds`, readDouble),
    exemplars: readExemplars(o.exemplars, `${path}.exemplars`),
    flags: readUint32(o.flags, `${path}.flags`),
  };
  const sum = readOptionalDouble(own(o, "sum"), `${path}.sum`);
  const min = readOptionalDouble(own(o, "min"), `${path}.min`);
  const max = readOptionalDouble(own(o, "max"), `${path}.max`);
  if (sum !== undefined) out.sum = sum;
  if (min !== undefined) out.min = min;
  if (max !== undefined) out.max = max;
  return out;
}

function readBuckets(raw: unknown, path: string): ExponentialHistogramBuckets | undefined {
  const o = readObject(raw, path);
  if (!o) return undefined;
  return {
    offset: readInt32(o.offset, `${path}.offset`),
    bucketCounts: each(o.bucketCounts, `${path}.bucketCounts`, readUint64),
  };
}

function readExponentialPoint(raw: unknown, path: string): ExponentialHistogramDataPoint {
  const o = readObject(raw, path) ?? EMPTY;
  const out: ExponentialHistogramDataPoint = {
    attributes: readAttributes(o.attributes, `${path}.attributes`),
    startTimeUnixNano: readUint64(o.startTimeUnixNano, `${path}.startTimeUnixNano`),
    timeUnixNano: readUint64(o.timeUnixNano, `${path}.timeUnixNano`),
    count: readUint64(o.count, `${path}.count`),
    scale: readInt32(o.scale, `${path}.scale`),
    zeroCount: readUint64(o.zeroCount, `${path}.zeroCount`),
    flags: readUint32(o.flags, `${path}.flags`),
    exemplars: readExemplars(o.exemplars, `${path}.exemplars`),
    zeroThreshold: readDouble(o.zeroThreshold, `${path}.zeroThreshold`),
  };
  const positive = readBuckets(o.positive, `${path}.positive`);
  const negative = readBuckets(o.negative, `${path}.negative`);
  const sum = readOptionalDouble(own(o, "sum"), `${path}.sum`);
  const min = readOptionalDouble(own(o, "min"), `${path}.min`);
  const max = readOptionalDouble(own(o, "max"), `${path}.max`);
  if (positive) out.positive = positive;
  if (negative) out.negative = negative;
  if (sum !== undefined) out.sum = sum;
  if (min !== undefined) out.min = min;
  if (max !== undefined) out.max = max;
  return out;
}

function readSummaryPoint(raw: unknown, path: string): SummaryDataPoint {
  const o = readObject(raw, path) ?? EMPTY;
  return {
    attributes: readAttributes(o.attributes, `${path}.attributes`),
    startTimeUnixNano: readUint64(o.startTimeUnixNano, `${path}.startTimeUnixNano`),
    timeUnixNano: readUint64(o.timeUnixNano, `${path}.timeUnixNano`),
    count: readUint64(o.count, `${path}.count`),
    sum: readDouble(o.sum, `${path}.sum`),
    quantileValues: each(o.quantileValues, `${path}.quantileValues`, (v, p) => {
      const q = readObject(v, p) ?? EMPTY;
      return { quantile: readDouble(q.quantile, `${p}.quantile`), value: readDouble(q.value, `${p}.value`) };
    }),
    flags: readUint32(o.flags, `${path}.flags`),
  };
}

function readTemporality(raw: unknown, path: string): number {
  return readEnum(raw, path, temporalityNames);
}

const metricDataMembers = ["gauge", "sum", "histogram", "exponentialHistogram", "summary"] as const;

function readMetric(raw: unknown, path: string): Metric {
  const o = readObject(raw, path) ?? EMPTY;
  const out: Metric = {
    name: readString(o.name, `${path}.name`),
    description: readString(o.description, `${path}.description`),
    unit: readString(o.unit, `${path}.unit`),
    metadata: readAttributes(o.metadata, `${path}.metadata`),
  };
  const member = oneOf(o, path, metricDataMembers);
  const p = `${path}.${member}`;
  const data = member ? (readObject(o[member], p) ?? EMPTY) : EMPTY;
  const points = `${p}.dataPoints`;
  switch (member) {
    case "gauge":
      out.gauge = { dataPoints: each(data.dataPoints, points, readNumberPoint) };
      break;
    case "sum":
      out.sum = {
        dataPoints: each(data.dataPoints, points, readNumberPoint),
        aggregationTemporality: readTemporality(data.aggregationTemporality, `${p}.aggregationTemporality`),
        isMonotonic: readBool(data.isMonotonic, `${p}.isMonotonic`),
      };
      break;
    case "histogram":
      out.histogram = {
        dataPoints: each(data.dataPoints, points, readHistogramPoint),
        aggregationTemporality: readTemporality(data.aggregationTemporality, `${p}.aggregationTemporality`),
      };
      break;
    case "exponentialHistogram":
      out.exponentialHistogram = {
        dataPoints: each(data.dataPoints, points, readExponentialPoint),
        aggregationTemporality: readTemporality(data.aggregationTemporality, `${p}.aggregationTemporality`),
      };
      break;
    case "summary":
      out.summary = { dataPoints: each(data.dataPoints, points, readSummaryPoint) };
      break;
  }
  return out;
}

function readScopeMetrics(raw: unknown, path: string): ScopeMetrics {
  const o = readObject(raw, path) ?? EMPTY;
  const out: ScopeMetrics = {
    metrics: each(o.metrics, `${path}.metrics`, readMetric),
    schemaUrl: readString(o.schemaUrl, `${path}.schemaUrl`),
  };
  const scope = readScope(o.scope, `${path}.scope`);
  if (scope) out.scope = scope;
  return out;
}

function readResourceMetrics(raw: unknown, path: string): ResourceMetrics {
  const o = readObject(raw, path) ?? EMPTY;
  const out: ResourceMetrics = {
    scopeMetrics: each(o.scopeMetrics, `${path}.scopeMetrics`, readScopeMetrics),
    schemaUrl: readString(o.schemaUrl, `${path}.schemaUrl`),
  };
  const resource = readResource(o.resource, `${path}.resource`);
  if (resource) out.resource = resource;
  return out;
}

/** Reads a whole `ExportMetricsServiceRequest` from its loose object form. */
export function readExportRequest(raw: unknown): ExportMetricsServiceRequest {
  const o = readObject(raw, "") ?? EMPTY;
  return { resourceMetrics: each(o.resourceMetrics, "resourceMetrics", readResourceMetrics) };
}

/** Reads an `ExportMetricsServiceResponse` from its loose object form. */
export function readExportResponse(raw: unknown): ExportMetricsServiceResponse {
  const o = readObject(raw, "") ?? EMPTY;
  const ps = readObject(o.partialSuccess, "partialSuccess");
  if (!ps) return {};
  return {
    partialSuccess: {
      rejectedDataPoints: readInt64(ps.rejectedDataPoints, "partialSuccess.rejectedDataPoints"),
      errorMessage: readString(ps.errorMessage, "partialSuccess.errorMessage"),
    },
  };
}
