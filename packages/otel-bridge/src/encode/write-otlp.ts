import type {
  AnyValue,
  Exemplar,
  ExponentialHistogramDataPoint,
  ExportMetricsServiceRequest,
  ExportMetricsServiceResponse,
  HistogramDataPoint,
  InstrumentationScope,
  KeyValue,
  Metric,
  NumberDataPoint,
  Resource,
  SummaryDataPoint,
} from "../otlp/otlp-types.js";

/**
 * Turns the typed shapes back into the loose object form: OTLP/JSON when `target` is
 * "json", or what protobufjs `encode()` takes when it is "protobuf". They differ in 64-bit
 * integers (decimal strings in JSON, `{low, high}` bits for protobufjs), bytes (hex ids and
 * base64 in JSON, raw bytes for protobuf) and non-finite doubles (JSON has no NaN, so proto3
 * JSON spells them as strings).
 */
export type WriteTarget = "json" | "protobuf";

type Loose = Record<string, unknown>;

/** A 64-bit integer; protobufjs writes `{low, high}` without the slow string-to-Long parse. */
function int64(value: bigint, target: WriteTarget): string | { low: number; high: number } {
  if (target === "json") return value.toString();
  const bits = BigInt.asUintN(64, value);
  return { low: Number(bits & 0xffffffffn) | 0, high: Number(bits >> 32n) | 0 };
}

function double(value: number, target: WriteTarget): number | string {
  if (target === "protobuf" || Number.isFinite(value)) return value;
  if (Number.isNaN(value)) return "NaN";
  return value > 0 ? "Infinity" : "-Infinity";
}

function bytes(value: Uint8Array, target: WriteTarget, text: "hex" | "base64"): Uint8Array | string {
  return target === "protobuf" ? value : Buffer.from(value).toString(text);
}

function anyValue(v: AnyValue, target: WriteTarget): Loose {
  if ("stringValue" in v) return { stringValue: v.stringValue };
  if ("boolValue" in v) return { boolValue: v.boolValue };
  if ("intValue" in v) return { intValue: int64(v.intValue, target) };
  if ("doubleValue" in v) return { doubleValue: double(v.doubleValue, target) };
  if ("arrayValue" in v)
    return { arrayValue: { values: v.arrayValue.values.map((x) => anyValue(x, target)) } };
  if ("kvlistValue" in v) return { kvlistValue: { values: attributes(v.kvlistValue.values, target) } };
  if ("bytesValue" in v) return { bytesValue: bytes(v.bytesValue, target, "base64") };
  return {};
}

function attributes(list: KeyValue[], target: WriteTarget): Loose[] {
  return list.map((kv) => ({ key: kv.key, value: anyValue(kv.value, target) }));
}

function scope(s: InstrumentationScope, target: WriteTarget): Loose {
  return {
    name: s.name,
    version: s.version,
    attributes: attributes(s.attributes, target),
    droppedAttributesCount: s.droppedAttributesCount,
  };
}

function resource(r: Resource, target: WriteTarget): Loose {
  return {
    attributes: attributes(r.attributes, target),
    droppedAttributesCount: r.droppedAttributesCount,
    entityRefs: r.entityRefs.map((e) => ({ ...e })),
  };
}

function exemplar(e: Exemplar, target: WriteTarget): Loose {
  const out: Loose = {
    filteredAttributes: attributes(e.filteredAttributes, target),
    timeUnixNano: int64(e.timeUnixNano, target),
    spanId: bytes(e.spanId, target, "hex"),
    traceId: bytes(e.traceId, target, "hex"),
  };
  if (e.asDouble !== undefined) out.asDouble = double(e.asDouble, target);
  if (e.asInt !== undefined) out.asInt = int64(e.asInt, target);
  return out;
}

function pointBase(
  p: { attributes: KeyValue[]; startTimeUnixNano: bigint; timeUnixNano: bigint; flags: number },
  target: WriteTarget,
): Loose {
  return {
    attributes: attributes(p.attributes, target),
    startTimeUnixNano: int64(p.startTimeUnixNano, target),
    timeUnixNano: int64(p.timeUnixNano, target),
    flags: p.flags,
  };
}

function optionalDoubles(out: Loose, p: { sum?: number; min?: number; max?: number }, target: WriteTarget) {
  if (p.sum !== undefined) out.sum = double(p.sum, target);
  if (p.min !== undefined) out.min = double(p.min, target);
  if (p.max !== undefined) out.max = double(p.max, target);
}

function numberPoint(p: NumberDataPoint, target: WriteTarget): Loose {
  const out = pointBase(p, target);
  out.exemplars = p.exemplars.map((e) => exemplar(e, target));
  if (p.asDouble !== undefined) out.asDouble = double(p.asDouble, target);
  if (p.asInt !== undefined) out.asInt = int64(p.asInt, target);
  return out;
}

function histogramPoint(p: HistogramDataPoint, target: WriteTarget): Loose {
  const out = pointBase(p, target);
  out.count = int64(p.count, target);
  out.bucketCounts = p.bucketCounts.map((c) => int64(c, target));
  out.explicitBounds = p.explicitBounds.map((b) => double(b, target));
  out.exemplars = p.exemplars.map((e) => exemplar(e, target));
  optionalDoubles(out, p, target);
  return out;
}

function exponentialPoint(p: ExponentialHistogramDataPoint, target: WriteTarget): Loose {
  const out = pointBase(p, target);
  out.count = int64(p.count, target);
  out.scale = p.scale;
  out.zeroCount = int64(p.zeroCount, target);
  out.zeroThreshold = double(p.zeroThreshold, target);
  out.exemplars = p.exemplars.map((e) => exemplar(e, target));
  if (p.positive)
    out.positive = {
      offset: p.positive.offset,
      bucketCounts: p.positive.bucketCounts.map((c) => int64(c, target)),
    };
  if (p.negative)
    out.negative = {
      offset: p.negative.offset,
      bucketCounts: p.negative.bucketCounts.map((c) => int64(c, target)),
    };
  optionalDoubles(out, p, target);
  return out;
}

function summaryPoint(p: SummaryDataPoint, target: WriteTarget): Loose {
  const out = pointBase(p, target);
  out.count = int64(p.count, target);
  out.sum = double(p.sum, target);
  out.quantileValues = p.quantileValues.map((q) => ({
    quantile: double(q.quantile, target),
    value: double(q.value, target),
  }));
  return out;
}

function metric(m: Metric, target: WriteTarget): Loose {
  const out: Loose = { name: m.name, description: m.description, unit: m.unit };
  if (m.metadata.length > 0) out.metadata = attributes(m.metadata, target);
  if (m.gauge) out.gauge = { dataPoints: m.gauge.dataPoints.map((p) => numberPoint(p, target)) };
  else if (m.sum) {
    out.sum = {
      dataPoints: m.sum.dataPoints.map((p) => numberPoint(p, target)),
      aggregationTemporality: m.sum.aggregationTemporality,
      isMonotonic: m.sum.isMonotonic,
    };
  } else if (m.histogram) {
    out.histogram = {
      dataPoints: m.histogram.dataPoints.map((p) => histogramPoint(p, target)),
      aggregationTemporality: m.histogram.aggregationTemporality,
    };
  } else if (m.exponentialHistogram) {
    out.exponentialHistogram = {
      dataPoints: m.exponentialHistogram.dataPoints.map((p) => exponentialPoint(p, target)),
      aggregationTemporality: m.exponentialHistogram.aggregationTemporality,
    };
  } else if (m.summary)
    out.summary = { dataPoints: m.summary.dataPoints.map((p) => summaryPoint(p, target)) };
  return out;
}

/** Loose object form of a request. */
export function writeExportRequest(request: ExportMetricsServiceRequest, target: WriteTarget): Loose {
  return {
    resourceMetrics: request.resourceMetrics.map((rm) => {
      const out: Loose = {
        scopeMetrics: rm.scopeMetrics.map((sm) => {
          const s: Loose = { metrics: sm.metrics.map((m) => metric(m, target)), schemaUrl: sm.schemaUrl };
          if (sm.scope) s.scope = scope(sm.scope, target);
          return s;
        }),
        schemaUrl: rm.schemaUrl,
      };
      if (rm.resource) out.resource = resource(rm.resource, target);
      return out;
    }),
  };
}

/** Loose object form of a response. */
export function writeExportResponse(response: ExportMetricsServiceResponse): Loose {
  if (!response.partialSuccess) return {};
  const { rejectedDataPoints, errorMessage } = response.partialSuccess;
  // Omit defaults, as protoc-generated encoders do.
  const partialSuccess: Loose = {};
  if (rejectedDataPoints !== 0n) partialSuccess.rejectedDataPoints = rejectedDataPoints.toString();
  if (errorMessage !== "") partialSuccess.errorMessage = errorMessage;
  return { partialSuccess };
}
