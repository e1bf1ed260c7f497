import type {
  ExportMetricsServiceRequest,
  Metric,
  ResourceMetrics,
  ScopeMetrics,
} from "../otlp/otlp-types.js";
import { ProtobufReader } from "./protobuf-reader.js";
import { oneOf, pushKeyValue, readResource, readScope, T } from "./read-protobuf-common.js";
import { readExponential, readGauge, readHistogram, readSum, readSummary } from "./read-protobuf-points.js";

/**
 * Reads an `ExportMetricsServiceRequest` straight from protobuf bytes into the shapes of
 * `otlp-types.ts` in one pass: checks wire types and bounds like `validateProtobuf`, and yields
 * what `readExportRequest(protobufjs.decode(bytes))` does, without the two intermediate object
 * trees (Longs, path strings) that made receiving several times slower than storing.
 */

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
