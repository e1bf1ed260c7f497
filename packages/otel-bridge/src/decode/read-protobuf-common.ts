import { otlpMetricsRoot } from "../otlp/otlp-proto.js";
import type { AnyValue, EntityRef, InstrumentationScope, KeyValue, Resource } from "../otlp/otlp-types.js";
import { type FieldTable, fieldTable, type ProtobufReader } from "./protobuf-reader.js";
import { MAX_ANY_VALUE_DEPTH } from "./read-common.js";

/**
 * Readers of the common.v1 and resource.v1 messages (AnyValue, KeyValue, Resource,
 * InstrumentationScope) straight from protobuf, and the field tables of every metrics message,
 * for the one-pass readers of `read-protobuf.ts` and `decode-observations-protobuf.ts`.
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
export const sint32 = (r: ProtobufReader, end: number) => {
  const n = r.varint(end) >>> 0;
  return (n >>> 1) ^ -(n & 1);
};

/** Sets a oneof member, refusing a second, different member like the object reader does. */
export function oneOf(r: ProtobufReader, current: string | undefined, member: string): string {
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
export function pushKeyValue(r: ProtobufReader, end: number, name: string, list: KeyValue[]): void {
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
