import { expect } from "vitest";
import { decodeObservations } from "../src/decode/decode-observations.js";
import { decodeObservationsProtobuf } from "../src/decode/decode-observations-protobuf.js";
import type { DecodedObservations, DecodeObservationsOptions } from "../src/decode/decoded-observations.js";
import { encodeExportMetricsRequest } from "../src/encode/encode.js";
import { keyValues, type ScalarAttribute } from "../src/mapping/attribute-values.js";
import type { ExportMetricsServiceRequest, Metric, NumberDataPoint } from "../src/otlp/otlp-types.js";

// OTLP requests as the OpenTelemetry Collector's receivers send standard inputs, built by hand for
// the decoders' unit tests, and the two decoders run side by side on them.

/** The time of every point, Unix nanoseconds. */
export const T = 1_796_229_000_000_000_000n;

export type Attrs = Record<string, ScalarAttribute>;

/** A point at {@link T}, integer-valued (`asInt`) when `integer`, else `asDouble`. */
export function point(
  value: number,
  attributes: Attrs = {},
  integer = Number.isInteger(value),
): NumberDataPoint {
  return {
    attributes: keyValues(Object.entries(attributes)),
    startTimeUnixNano: T - 60_000_000_000n,
    timeUnixNano: T,
    exemplars: [],
    flags: 0,
    ...(integer ? { asInt: BigInt(value) } : { asDouble: value }),
  };
}

export const gauge = (name: string, unit: string, ...points: NumberDataPoint[]): Metric => ({
  name,
  description: "",
  unit,
  metadata: [],
  gauge: { dataPoints: points },
});

/** A monotonic Sum, delta (1) or cumulative (2). */
export const counter = (
  name: string,
  unit: string,
  temporality: 1 | 2,
  ...points: NumberDataPoint[]
): Metric => ({
  name,
  description: "",
  unit,
  metadata: [],
  sum: { dataPoints: points, aggregationTemporality: temporality, isMonotonic: true },
});

/** One request with a resource per entry, as the OpenTelemetry Collector's receivers send them. */
export function request(...resources: Array<[Attrs, Metric[]]>): ExportMetricsServiceRequest {
  return {
    resourceMetrics: resources.map(([attributes, metrics]) => ({
      resource: {
        attributes: keyValues(Object.entries(attributes)),
        droppedAttributesCount: 0,
        entityRefs: [],
      },
      scopeMetrics: [{ metrics, schemaUrl: "" }],
      schemaUrl: "",
    })),
  };
}

/** Both decoders, which must agree on everything, host-only and container-only samples included. */
export function decode(
  req: ExportMetricsServiceRequest,
  options: DecodeObservationsOptions = {},
): DecodedObservations {
  const fromObjects = decodeObservations(req, options);
  const fromBytes = decodeObservationsProtobuf(encodeExportMetricsRequest(req), options);
  expect(fromBytes.samples).toEqual(fromObjects.samples);
  expect(fromBytes.rejected).toEqual(fromObjects.rejected);
  expect(fromBytes.skipped).toEqual(fromObjects.skipped);
  expect(fromBytes.hostOnly).toEqual(fromObjects.hostOnly);
  expect(fromBytes.containerOnly).toEqual(fromObjects.containerOnly);
  return fromObjects;
}
