import { mergeAttributes, type ScalarAttribute, scalarOf } from "../mapping/attribute-values.js";
import type { ObservationMapping } from "../mapping/observation-mapping.js";
import { readStringAttribute, ScratchAttributes } from "../mapping/point-attributes.js";
import { type Metric, OtlpDataPointFlags } from "../otlp/otlp-types.js";
import type { DecodedObservations, DecodeObservationsOptions } from "./decoded-observations.js";
import { intPointValue, isOwnScope, ObservationCollector } from "./observation-collector.js";
import { ProtobufReader } from "./protobuf-reader.js";
import { readMetric } from "./read-protobuf.js";
import { readAnyValue, readKeyValue, readResource, readScope, T, uint32 } from "./read-protobuf-common.js";
import { readExemplar, readGauge, readSum } from "./read-protobuf-points.js";
import { isStandardInput } from "./standard/standard-mappings.js";

const NO_VALUE = OtlpDataPointFlags.NO_RECORDED_VALUE_MASK;
const DATA_MEMBERS: Record<number, "gauge" | "sum" | "histogram" | "exponentialHistogram" | "summary"> = {
  5: "gauge",
  7: "sum",
  9: "histogram",
  10: "exponentialHistogram",
  11: "summary",
};

function pointCount(metric: Metric): number {
  const data =
    metric.gauge ?? metric.sum ?? metric.histogram ?? metric.exponentialHistogram ?? metric.summary;
  return data?.dataPoints.length ?? 0;
}

/** The scalar of an AnyValue read in place; non-scalar values are read (and checked) whole. */
function readScalar(r: ProtobufReader, end: number): ScalarAttribute | undefined {
  const start = r.pos;
  let member = 0;
  let scalar: ScalarAttribute | undefined;
  while (r.pos < end) {
    const id = r.field(T.anyValue, end);
    if (id === 0) continue;
    if (member !== 0 && member !== id) {
      // Two members: let the full reader report it exactly as it always does.
      r.pos = start;
      return scalarOf(readAnyValue(r, end, 0));
    }
    member = id;
    if (id === 1) scalar = r.string(end);
    else if (id === 2) scalar = r.varint(end) !== 0;
    else if (id === 4) scalar = r.double(end);
    else {
      r.pos = start;
      return scalarOf(readAnyValue(r, end, 0));
    }
  }
  return scalar;
}

/** The `aggregation_temporality` of the Sum whose field starts at `at` (its last value wins). */
function sumTemporality(r: ProtobufReader, at: number, end: number): number {
  r.pos = at;
  r.field(T.metric, end);
  let temporality = 0;
  r.message(end, "sum", -1, (rr, e) => {
    while (rr.pos < e) {
      const id = rr.field(T.sum, e);
      if (id === 2) temporality = rr.varint(e);
      else if (id === 1) rr.pos = rr.delimited(e);
      else if (id === 3) rr.varint(e);
    }
  });
  return temporality;
}

/**
 * The protobuf side of {@link decodeObservationsProtobuf}: walks the request once per level,
 * building no OTLP objects for the points it maps (their attributes go into one reused scratch
 * list), and hands each point to the same {@link ObservationCollector} as `decodeObservations`.
 */
class ObservationWalker {
  readonly #collector: ObservationCollector;
  readonly #attributes = new ScratchAttributes();
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  #mapping!: ObservationMapping;
  // Whether the scope being read is Jobsight's own (its metrics' convention names are its own).
  #ownScope = false;

  constructor(collector: ObservationCollector, bytes: Uint8Array) {
    this.#collector = collector;
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  readonly resourceMetrics = (r: ProtobufReader, end: number): void => {
    // Pass 1: the resource (it may come after the scopes); pass 2: the scopes.
    const start = r.pos;
    const attributes = new Map<string, ScalarAttribute>();
    while (r.pos < end) {
      const id = r.field(T.resourceMetrics, end);
      if (id === 1) {
        attributes.clear();
        mergeAttributes(attributes, r.message(end, "resource", -1, readResource).attributes);
      } else if (id === 3) r.string(end);
      else if (id === 2) r.pos = r.delimited(end);
    }
    r.pos = start;
    let index = 0;
    while (r.pos < end) {
      const id = r.field(T.resourceMetrics, end);
      if (id === 2) r.message(end, "scopeMetrics", index++, (rr, e) => this.#scopeMetrics(rr, e, attributes));
      else if (id !== 0) r.pos = r.delimited(end);
    }
  };

  #scopeMetrics(r: ProtobufReader, end: number, resource: ReadonlyMap<string, ScalarAttribute>): void {
    const start = r.pos;
    let scope: Map<string, ScalarAttribute> | undefined;
    this.#ownScope = false;
    while (r.pos < end) {
      const id = r.field(T.scopeMetrics, end);
      if (id === 1) {
        scope = new Map(resource);
        const read = r.message(end, "scope", -1, readScope);
        mergeAttributes(scope, read.attributes);
        this.#ownScope = isOwnScope(read.name);
      } else if (id === 3) r.string(end);
      else if (id === 2) r.pos = r.delimited(end);
    }
    const outer = scope ?? resource;
    r.pos = start;
    let index = 0;
    while (r.pos < end) {
      const id = r.field(T.scopeMetrics, end);
      if (id === 2) {
        this.#attributes.outer = outer;
        r.message(end, "metrics", index++, this.#metric);
      } else if (id !== 0) r.pos = r.delimited(end);
    }
  }

  readonly #metric = (r: ProtobufReader, end: number): void => {
    // Pass 1: the name and data kind, every other field checked; pass 2: the points of the
    // last data member (a repeated one replaces the earlier, as in the object reader).
    const start = r.pos;
    let name = "";
    let unit = "";
    let member = 0;
    let dataAt = -1;
    let metadata = 0;
    while (r.pos < end) {
      const at = r.pos;
      const id = r.field(T.metric, end);
      if (id === 1) name = r.string(end);
      else if (id === 3) unit = r.string(end);
      else if (id === 2) r.string(end);
      else if (id === 12) r.message(end, "metadata", metadata++, readKeyValue);
      else if (DATA_MEMBERS[id]) {
        if (member !== 0 && member !== id) {
          r.fail("OTLP_INVALID_FIELD", `both ${DATA_MEMBERS[member]} and ${DATA_MEMBERS[id]} are set`);
        }
        member = id;
        dataAt = at;
        r.pos = r.delimited(end);
      }
    }
    const kind = DATA_MEMBERS[member];
    // A standard counter's temporality decides whether its points can be used at all.
    const temporality = kind === "sum" && isStandardInput(name) ? sumTemporality(r, dataAt, end) : undefined;
    const mapping = this.#collector.mappingOf(name, unit, temporality, this.#ownScope);
    r.pos = start;
    if (!mapping || (kind !== "gauge" && kind !== "sum")) {
      // Set aside whole: read (and so check) it the ordinary way, to count its points.
      const points = pointCount(readMetric(r, end));
      if (mapping) this.#collector.rejectWrongType(name, points);
      else this.#collector.skipUnmapped(name, points);
      return;
    }
    this.#mapping = mapping;
    while (r.pos < end) {
      const at = r.pos;
      const id = r.field(T.metric, end);
      if (id === member && at === dataAt)
        r.message(end, kind, -1, kind === "gauge" ? this.#gauge : this.#sum);
      // An earlier instance is replaced by the last, yet must be well-formed, as the object reader checks.
      else if (id === member) r.message(end, kind, -1, kind === "gauge" ? readGauge : readSum);
      else if (id !== 0) r.pos = r.delimited(end);
    }
  };

  readonly #gauge = (r: ProtobufReader, end: number): void => this.#points(r, end, T.gauge);
  readonly #sum = (r: ProtobufReader, end: number): void => this.#points(r, end, T.sum);

  #points(r: ProtobufReader, end: number, table: typeof T.gauge): void {
    let index = 0;
    while (r.pos < end) {
      const id = r.field(table, end);
      if (id === 1) r.message(end, "dataPoints", index++, this.#point);
      else if (id === 2) r.varint(end);
      else if (id === 3) r.varint(end);
    }
  }

  readonly #point = (r: ProtobufReader, end: number): void => {
    const attributes = this.#attributes;
    attributes.clear();
    const bytes = this.#bytes;
    const view = this.#view;
    let timeLo = 0;
    let timeHi = 0;
    let member = 0;
    let asDouble = 0;
    let asInt: number | string = 0;
    let flags = 0;
    let exemplars = 0;
    while (r.pos < end) {
      // The fixed-width fields, whose one-byte tags are checked here and whose values are read
      // in place (no BigInt for the time); everything else goes through the checking reader.
      const at = r.pos;
      const tag = bytes[at];
      if (tag === 0x3a && readStringAttribute(r, bytes, end, attributes)) continue;
      if (tag === 0x31 && at + 9 <= end) {
        if (member === 4) r.fail("OTLP_INVALID_FIELD", "both asDouble and asInt are set");
        member = 6;
        const hi = view.getInt32(at + 5, true);
        const n = hi * 4_294_967_296 + view.getUint32(at + 1, true);
        // Exact whenever |hi| < 2^21, which covers every safe integer (see `sfixed64Safe`).
        const safe = hi >= -0x200000 && hi < 0x200000 && Number.isSafeInteger(n);
        asInt = safe ? n : intPointValue(view.getBigInt64(at + 1, true));
        r.pos = at + 9;
        continue;
      }
      if ((tag === 0x11 || tag === 0x19 || tag === 0x21) && at + 9 <= end) {
        r.pos = at + 9;
        if (tag === 0x19) {
          timeLo = view.getUint32(at + 1, true);
          timeHi = view.getUint32(at + 5, true);
        } else if (tag === 0x21) {
          if (member === 6) r.fail("OTLP_INVALID_FIELD", "both asDouble and asInt are set");
          member = 4;
          asDouble = view.getFloat64(at + 1, true);
        }
        continue;
      }
      const id = r.field(T.numberPoint, end);
      switch (id) {
        case 7:
          r.message(end, "attributes", attributes.length, this.#attribute);
          break;
        case 2:
          r.skip64(end);
          break;
        case 3:
          r.skip64(end);
          timeLo = view.getUint32(r.pos - 8, true);
          timeHi = view.getUint32(r.pos - 4, true);
          break;
        case 4:
        case 6:
          if (member !== 0 && member !== id) r.fail("OTLP_INVALID_FIELD", "both asDouble and asInt are set");
          member = id;
          if (id === 4) asDouble = r.double(end);
          else {
            const at = r.pos;
            const safe = r.sfixed64Safe(end);
            if (safe !== undefined) asInt = safe;
            else {
              r.pos = at;
              asInt = intPointValue(r.fixed64(end, true));
            }
          }
          break;
        case 5:
          r.message(end, "exemplars", exemplars++, readExemplar);
          break;
        case 8:
          flags = uint32(r, end);
          break;
      }
    }
    if ((flags & NO_VALUE) !== 0) return;
    const value = member === 6 ? asInt : member === 4 ? asDouble : "point has no value";
    this.#collector.addPointAt(this.#mapping, value, timeLo, timeHi, attributes);
  };

  readonly #attribute = (r: ProtobufReader, end: number): void => {
    let key = "";
    let value: ScalarAttribute | undefined;
    while (r.pos < end) {
      const id = r.field(T.keyValue, end);
      if (id === 1) key = r.string(end);
      else if (id === 2) value = r.message(end, "value", -1, readScalar);
    }
    this.#attributes.add(key, value);
  };
}

/**
 * {@link decodeObservations} straight from protobuf bytes (a gRPC message or an OTLP/HTTP
 * protobuf body): the same samples, keys and rejections as
 * `decodeObservations(decodeExportMetricsRequest(bytes))`, and the same errors for a body that
 * does not decode, several times faster, because the points it maps never become OTLP objects.
 *
 * @throws {OtlpDecodeError} like `decodeExportMetricsRequest`.
 * @example
 * ```ts
 * const { samples, rejected } = decodeObservationsProtobuf(body, { cluster: "hpc1" });
 * ```
 */
export function decodeObservationsProtobuf(
  bytes: Uint8Array,
  options: DecodeObservationsOptions = {},
): DecodedObservations {
  const collector = new ObservationCollector(options);
  const walker = new ObservationWalker(collector, bytes);
  const r = new ProtobufReader(bytes);
  const end = r.length;
  let index = 0;
  while (r.pos < end) {
    if (r.field(T.request, end) === 1) r.message(end, "resourceMetrics", index++, walker.resourceMetrics);
  }
  return collector.finish();
}
