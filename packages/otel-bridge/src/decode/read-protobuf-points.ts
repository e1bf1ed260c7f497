import type {
  Exemplar,
  ExponentialHistogramBuckets,
  ExponentialHistogramDataPoint,
  HistogramDataPoint,
  NumberDataPoint,
  SummaryDataPoint,
  ValueAtQuantile,
} from "../otlp/otlp-types.js";
import type { FieldTable, ProtobufReader } from "./protobuf-reader.js";
import { int32, oneOf, pushKeyValue, sint32, T, uint32 } from "./read-protobuf-common.js";

/** Readers of exemplars, data points and the metric data bodies straight from protobuf. */

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

export const readGauge = readPoints(T.gauge, readNumberPoint);
export const readSum = readPoints(T.sum, readNumberPoint);
export const readHistogram = readPoints(T.histogram, readHistogramPoint);
export const readExponential = readPoints(T.exponentialHistogram, readExponentialPoint);
export const readSummary = readPoints(T.summary, readSummaryPoint);
