import { otlpMetricsRoot } from "./otlp-proto.js";
import type {
  AnyValue,
  EntityRef,
  Exemplar,
  ExponentialHistogramBuckets,
  ExponentialHistogramDataPoint,
  ExportMetricsServiceRequest,
  HistogramDataPoint,
  InstrumentationScope,
  KeyValue,
  Metric,
  NumberDataPoint,
  Resource,
  ResourceMetrics,
  ScopeMetrics,
  SummaryDataPoint,
  ValueAtQuantile,
} from "./otlp-types.js";
import { type FieldTable, fieldTable, ProtobufReader } from "./protobuf-reader.js";
import { MAX_ANY_VALUE_DEPTH } from "./read-common.js";

/**
 * Reads an `ExportMetricsServiceRequest` straight from protobuf bytes into the shapes of
 * `otlp-types.ts` in one pass: checks wire types and bounds like `validateProtobuf`, and yields
 * what `readExportRequest(protobufjs.decode(bytes))` does, without the two intermediate object
 * trees (Longs, path strings) that made receiving several times slower than storing.
 */

const table = (name: string): FieldTable => fieldTable(otlpMetricsRoot.lookupType(name));
const C = "opentelemetry.proto.common.v1.";
const M = "opentelemetry.proto.metrics.v1.";
export const T = {
  request: table("opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest"),
  resourceMetrics: table(`${M}ResourceMetrics`),
  resource: table("opentelemetry.proto.resource.v1.Resource"),
  scopeMetrics: table(`${M}ScopeMetrics`),
  scope: table(`${C}InstrumentationScope`),
  entityRef: table(`${C}EntityRef`),
  keyValue: table(`${C}KeyValue`),
  anyValue: table(`${C}AnyValue`),
  values: table(`${C}ArrayValue`),
  kvlist: table(`${C}KeyValueList`),
  metric: table(`${M}Metric`),
  gauge: table(`${M}Gauge`),
  sum: table(`${M}Sum`),
  histogram: table(`${M}Histogram`),
  exponentialHistogram: table(`${M}ExponentialHistogram`),
  summary: table(`${M}Summary`),
  numberPoint: table(`${M}NumberDataPoint`),
  histogramPoint: table(`${M}HistogramDataPoint`),
  exponentialPoint: table(`${M}ExponentialHistogramDataPoint`),
  buckets: table(`${M}ExponentialHistogramDataPoint.Buckets`),
  summaryPoint: table(`${M}SummaryDataPoint`),
  quantile: table(`${M}SummaryDataPoint.ValueAtQuantile`),
  exemplar: table(`${M}Exemplar`),
};

export const int32 = (r: ProtobufReader, end: number) => r.varint(end) | 0;
export const uint32 = (r: ProtobufReader, end: number) => r.varint(end) >>> 0;
const sint32 = (r: ProtobufReader, end: number) => {
  const n = r.varint(end) >>> 0;
  return (n >>> 1) ^ -(n & 1);
};

/** Sets a oneof member, refusing a second, different member like the object reader does. */
function oneOf(r: ProtobufReader, current: string | undefined, member: string): string {
  if (current !== undefined && current !== member)
    r.fail("OTLP_INVALID_FIELD", `both ${current} and ${member} are set`);
  return member;
}

export function readAnyValue(r: ProtobufReader, end: number, depth: number): AnyValue {
  let member: string | undefined;
  let value: AnyValue = {};
  while (r.pos < end) {
    switch (r.field(T.anyValue, end)) {
      case 1:
        member = oneOf(r, member, "stringValue");
        value = { stringValue: r.string(end) };
        break;
      case 2:
        member = oneOf(r, member, "boolValue");
        value = { boolValue: r.varint(end) !== 0 };
        break;
      case 3:
        member = oneOf(r, member, "intValue");
        value = { intValue: r.varint64(end, true) };
        break;
      case 4:
        member = oneOf(r, member, "doubleValue");
        value = { doubleValue: r.double(end) };
        break;
      case 5:
        member = oneOf(r, member, "arrayValue");
        value = {
          arrayValue: { values: r.message(end, "arrayValue", -1, (rr, e) => readValues(rr, e, depth)) },
        };
        break;
      case 6:
        member = oneOf(r, member, "kvlistValue");
        value = {
          kvlistValue: { values: r.message(end, "kvlistValue", -1, (rr, e) => readKeyValues(rr, e, depth)) },
        };
        break;
      case 7:
        member = oneOf(r, member, "bytesValue");
        value = { bytesValue: r.bytes(end) };
        break;
    }
  }
  return value;
}

function readValues(r: ProtobufReader, end: number, depth: number): AnyValue[] {
  const values: AnyValue[] = [];
  while (r.pos < end) {
    if (r.field(T.values, end) === 1) {
      values.push(r.message(end, "values", values.length, (rr, e) => nestedAnyValue(rr, e, depth + 1)));
    }
  }
  return values;
}

function readKeyValues(r: ProtobufReader, end: number, depth: number): KeyValue[] {
  const values: KeyValue[] = [];
  while (r.pos < end) {
    if (r.field(T.kvlist, end) === 1) {
      values.push(r.message(end, "values", values.length, (rr, e) => readKeyValue(rr, e, depth + 1)));
    }
  }
  return values;
}

function nestedAnyValue(r: ProtobufReader, end: number, depth: number): AnyValue {
  if (depth > MAX_ANY_VALUE_DEPTH) tooDeep(r);
  return readAnyValue(r, end, depth);
}

function tooDeep(r: ProtobufReader): never {
  // The message nesting limit of the reader normally strikes first; this keeps the AnyValue
  // limit of the JSON reader for bodies that stay shallow in messages.
  return r.fail("OTLP_NESTING_TOO_DEEP", `AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH}`);
}

export function readKeyValue(r: ProtobufReader, end: number, depth = 0): KeyValue {
  let key = "";
  let value: AnyValue = {};
  while (r.pos < end) {
    switch (r.field(T.keyValue, end)) {
      case 1:
        key = r.string(end);
        break;
      case 2:
        value = r.message(end, "value", -1, (rr, e) => nestedAnyValue(rr, e, depth));
        break;
    }
  }
  return { key, value };
}

/** Appends one KeyValue of a repeated attributes field named `name`. */
function pushKeyValue(r: ProtobufReader, end: number, name: string, list: KeyValue[]): void {
  list.push(r.message(end, name, list.length, readKeyValue));
}

function readEntityRef(r: ProtobufReader, end: number): EntityRef {
  const out: EntityRef = { schemaUrl: "", type: "", idKeys: [], descriptionKeys: [] };
  while (r.pos < end) {
    switch (r.field(T.entityRef, end)) {
      case 1:
        out.schemaUrl = r.string(end);
        break;
      case 2:
        out.type = r.string(end);
        break;
      case 3:
        out.idKeys.push(r.string(end));
        break;
      case 4:
        out.descriptionKeys.push(r.string(end));
        break;
    }
  }
  return out;
}

export function readResource(r: ProtobufReader, end: number): Resource {
  const out: Resource = { attributes: [], droppedAttributesCount: 0, entityRefs: [] };
  while (r.pos < end) {
    switch (r.field(T.resource, end)) {
      case 1:
        pushKeyValue(r, end, "attributes", out.attributes);
        break;
      case 2:
        out.droppedAttributesCount = uint32(r, end);
        break;
      case 3:
        out.entityRefs.push(r.message(end, "entityRefs", out.entityRefs.length, readEntityRef));
        break;
    }
  }
  return out;
}

export function readScope(r: ProtobufReader, end: number): InstrumentationScope {
  const out: InstrumentationScope = { name: "", version: "", attributes: [], droppedAttributesCount: 0 };
  while (r.pos < end) {
    switch (r.field(T.scope, end)) {
      case 1:
        out.name = r.string(end);
        break;
      case 2:
        out.version = r.string(end);
        break;
      case 3:
        pushKeyValue(r, end, "attributes", out.attributes);
        break;
      case 4:
        out.droppedAttributesCount = uint32(r, end);
        break;
    }
  }
  return out;
}

export function readExemplar(r: ProtobufReader, end: number): Exemplar {
  const out: Exemplar = {
    filteredAttributes: [],
    timeUnixNano: 0n,
    spanId: new Uint8Array(0),
    traceId: new Uint8Array(0),
  };
  let member: string | undefined;
  while (r.pos < end) {
    switch (r.field(T.exemplar, end)) {
      case 7:
        pushKeyValue(r, end, "filteredAttributes", out.filteredAttributes);
        break;
      case 2:
        out.timeUnixNano = r.fixed64(end, false);
        break;
      case 3:
        member = oneOf(r, member, "asDouble");
        out.asDouble = r.double(end);
        break;
      case 6:
        member = oneOf(r, member, "asInt");
        out.asInt = r.fixed64(end, true);
        break;
      case 4:
        out.spanId = r.bytes(end);
        break;
      case 5:
        out.traceId = r.bytes(end);
        break;
    }
  }
  return out;
}

function readNumberPoint(r: ProtobufReader, end: number): NumberDataPoint {
  const out: NumberDataPoint = {
    attributes: [],
    startTimeUnixNano: 0n,
    timeUnixNano: 0n,
    exemplars: [],
    flags: 0,
  };
  let member: string | undefined;
  while (r.pos < end) {
    switch (r.field(T.numberPoint, end)) {
      case 7:
        pushKeyValue(r, end, "attributes", out.attributes);
        break;
      case 2:
        out.startTimeUnixNano = r.fixed64(end, false);
        break;
      case 3:
        out.timeUnixNano = r.fixed64(end, false);
        break;
      case 4:
        member = oneOf(r, member, "asDouble");
        out.asDouble = r.double(end);
        break;
      case 6:
        member = oneOf(r, member, "asInt");
        out.asInt = r.fixed64(end, true);
        break;
      case 5:
        out.exemplars.push(r.message(end, "exemplars", out.exemplars.length, readExemplar));
        break;
      case 8:
        out.flags = uint32(r, end);
        break;
    }
  }
  return out;
}

function readHistogramPoint(r: ProtobufReader, end: number): HistogramDataPoint {
  const out: HistogramDataPoint = {
    attributes: [],
    startTimeUnixNano: 0n,
    timeUnixNano: 0n,
    count: 0n,
    bucketCounts: [],
    explicitBounds: [],
    exemplars: [],
    flags: 0,
  };
  while (r.pos < end) {
    switch (r.field(T.histogramPoint, end)) {
      case 9:
        pushKeyValue(r, end, "attributes", out.attributes);
        break;
      case 2:
        out.startTimeUnixNano = r.fixed64(end, false);
        break;
      case 3:
        out.timeUnixNano = r.fixed64(end, false);
        break;
      case 4:
        out.count = r.fixed64(end, false);
        break;
      case 5:
        out.sum = r.double(end);
        break;
      case 6:
        r.repeated(end, (e) => out.bucketCounts.push(r.fixed64(e, false)));
        break;
      case 7:
        r.repeated(end, (e) => out.explicitBounds.push(r.double(e)));
        break;
      case 8:
        out.exemplars.push(r.message(end, "exemplars", out.exemplars.length, readExemplar));
        break;
      case 10:
        out.flags = uint32(r, end);
        break;
      case 11:
        out.min = r.double(end);
        break;
      case 12:
        out.max = r.double(end);
        break;
    }
  }
  return out;
}

function readBuckets(r: ProtobufReader, end: number): ExponentialHistogramBuckets {
  const out: ExponentialHistogramBuckets = { offset: 0, bucketCounts: [] };
  while (r.pos < end) {
    switch (r.field(T.buckets, end)) {
      case 1:
        out.offset = sint32(r, end);
        break;
      case 2:
        r.repeated(end, (e) => out.bucketCounts.push(r.varint64(e, false)));
        break;
    }
  }
  return out;
}

function readExponentialPoint(r: ProtobufReader, end: number): ExponentialHistogramDataPoint {
  const out: ExponentialHistogramDataPoint = {
    attributes: [],
    startTimeUnixNano: 0n,
    timeUnixNano: 0n,
    count: 0n,
    scale: 0,
    zeroCount: 0n,
    flags: 0,
    exemplars: [],
    zeroThreshold: 0,
  };
  while (r.pos < end) {
    switch (r.field(T.exponentialPoint, end)) {
      case 1:
        pushKeyValue(r, end, "attributes", out.attributes);
        break;
      case 2:
        out.startTimeUnixNano = r.fixed64(end, false);
        break;
      case 3:
        out.timeUnixNano = r.fixed64(end, false);
        break;
      case 4:
        out.count = r.fixed64(end, false);
        break;
      case 5:
        out.sum = r.double(end);
        break;
      case 6:
        out.scale = sint32(r, end);
        break;
      case 7:
        out.zeroCount = r.fixed64(end, false);
        break;
      case 8:
        out.positive = r.message(end, "positive", -1, readBuckets);
        break;
      case 9:
        out.negative = r.message(end, "negative", -1, readBuckets);
        break;
      case 10:
        out.flags = uint32(r, end);
        break;
      case 11:
        out.exemplars.push(r.message(end, "exemplars", out.exemplars.length, readExemplar));
        break;
      case 12:
        out.min = r.double(end);
        break;
      case 13:
        out.max = r.double(end);
        break;
      case 14:
        out.zeroThreshold = r.double(end);
        break;
    }
  }
  return out;
}

function readQuantile(r: ProtobufReader, end: number): ValueAtQuantile {
  const out: ValueAtQuantile = { quantile: 0, value: 0 };
  while (r.pos < end) {
    const id = r.field(T.quantile, end);
    if (id === 1) out.quantile = r.double(end);
    else if (id === 2) out.value = r.double(end);
  }
  return out;
}

function readSummaryPoint(r: ProtobufReader, end: number): SummaryDataPoint {
  const out: SummaryDataPoint = {
    attributes: [],
    startTimeUnixNano: 0n,
    timeUnixNano: 0n,
    count: 0n,
    sum: 0,
    quantileValues: [],
    flags: 0,
  };
  while (r.pos < end) {
    switch (r.field(T.summaryPoint, end)) {
      case 7:
        pushKeyValue(r, end, "attributes", out.attributes);
        break;
      case 2:
        out.startTimeUnixNano = r.fixed64(end, false);
        break;
      case 3:
        out.timeUnixNano = r.fixed64(end, false);
        break;
      case 4:
        out.count = r.fixed64(end, false);
        break;
      case 5:
        out.sum = r.double(end);
        break;
      case 6:
        out.quantileValues.push(r.message(end, "quantileValues", out.quantileValues.length, readQuantile));
        break;
      case 8:
        out.flags = uint32(r, end);
        break;
    }
  }
  return out;
}

/** The data points and other fields of a Gauge/Sum/Histogram/ExponentialHistogram/Summary body. */
function readPoints<P>(
  table: FieldTable,
  read: (r: ProtobufReader, end: number) => P,
): (
  r: ProtobufReader,
  end: number,
) => { dataPoints: P[]; aggregationTemporality: number; isMonotonic: boolean } {
  return (r, end) => {
    const out = { dataPoints: [] as P[], aggregationTemporality: 0, isMonotonic: false };
    while (r.pos < end) {
      switch (r.field(table, end)) {
        case 1:
          out.dataPoints.push(r.message(end, "dataPoints", out.dataPoints.length, read));
          break;
        case 2:
          out.aggregationTemporality = int32(r, end);
          break;
        case 3:
          out.isMonotonic = r.varint(end) !== 0;
          break;
      }
    }
    return out;
  };
}

const readGauge = readPoints(T.gauge, readNumberPoint);
const readSum = readPoints(T.sum, readNumberPoint);
const readHistogram = readPoints(T.histogram, readHistogramPoint);
const readExponential = readPoints(T.exponentialHistogram, readExponentialPoint);
const readSummary = readPoints(T.summary, readSummaryPoint);

export function readMetric(r: ProtobufReader, end: number): Metric {
  const out: Metric = { name: "", description: "", unit: "", metadata: [] };
  let member: string | undefined;
  while (r.pos < end) {
    switch (r.field(T.metric, end)) {
      case 1:
        out.name = r.string(end);
        break;
      case 2:
        out.description = r.string(end);
        break;
      case 3:
        out.unit = r.string(end);
        break;
      case 12:
        pushKeyValue(r, end, "metadata", out.metadata);
        break;
      case 5: {
        member = oneOf(r, member, "gauge");
        const { dataPoints } = r.message(end, "gauge", -1, readGauge);
        out.gauge = { dataPoints };
        break;
      }
      case 7:
        member = oneOf(r, member, "sum");
        out.sum = r.message(end, "sum", -1, readSum);
        break;
      case 9: {
        member = oneOf(r, member, "histogram");
        const { dataPoints, aggregationTemporality } = r.message(end, "histogram", -1, readHistogram);
        out.histogram = { dataPoints, aggregationTemporality };
        break;
      }
      case 10: {
        member = oneOf(r, member, "exponentialHistogram");
        const { dataPoints, aggregationTemporality } = r.message(
          end,
          "exponentialHistogram",
          -1,
          readExponential,
        );
        out.exponentialHistogram = { dataPoints, aggregationTemporality };
        break;
      }
      case 11: {
        member = oneOf(r, member, "summary");
        const { dataPoints } = r.message(end, "summary", -1, readSummary);
        out.summary = { dataPoints };
        break;
      }
    }
  }
  return out;
}

function readScopeMetrics(r: ProtobufReader, end: number): ScopeMetrics {
  const out: ScopeMetrics = { metrics: [], schemaUrl: "" };
  while (r.pos < end) {
    switch (r.field(T.scopeMetrics, end)) {
      case 1:
        out.scope = r.message(end, "scope", -1, readScope);
        break;
      case 2:
        out.metrics.push(r.message(end, "metrics", out.metrics.length, readMetric));
        break;
      case 3:
        out.schemaUrl = r.string(end);
        break;
    }
  }
  return out;
}

function readResourceMetrics(r: ProtobufReader, end: number): ResourceMetrics {
  const out: ResourceMetrics = { scopeMetrics: [], schemaUrl: "" };
  while (r.pos < end) {
    switch (r.field(T.resourceMetrics, end)) {
      case 1:
        out.resource = r.message(end, "resource", -1, readResource);
        break;
      case 2:
        out.scopeMetrics.push(r.message(end, "scopeMetrics", out.scopeMetrics.length, readScopeMetrics));
        break;
      case 3:
        out.schemaUrl = r.string(end);
        break;
    }
  }
  return out;
}

/**
 * Decodes and checks an `ExportMetricsServiceRequest` from protobuf bytes in one pass.
 *
 * @throws {OtlpDecodeError} `OTLP_TRUNCATED`, `OTLP_MALFORMED_PROTOBUF`, `OTLP_INVALID_FIELD`
 *   or `OTLP_NESTING_TOO_DEEP`, with the path of the offending message.
 * @example
 * ```ts
 * const request = readExportRequestProtobuf(body);
 * ```
 */
export function readExportRequestProtobuf(bytes: Uint8Array): ExportMetricsServiceRequest {
  const r = new ProtobufReader(bytes);
  const end = r.length;
  const resourceMetrics: ResourceMetrics[] = [];
  while (r.pos < end) {
    if (r.field(T.request, end) === 1) {
      resourceMetrics.push(r.message(end, "resourceMetrics", resourceMetrics.length, readResourceMetrics));
    }
  }
  return { resourceMetrics };
}
