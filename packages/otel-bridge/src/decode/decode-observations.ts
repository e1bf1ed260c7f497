import { mergeAttributes, type ScalarAttribute } from "../mapping/attribute-values.js";
import { PointAttributes } from "../mapping/point-attributes.js";
import { type ExportMetricsServiceRequest, type Metric, OtlpDataPointFlags } from "../otlp/otlp-types.js";
import type {
  DecodedObservations,
  DecodeObservationsOptions,
  ObservationRejections,
} from "./decoded-observations.js";
import { intPointValue, isOwnScope, ObservationCollector } from "./observation-collector.js";

function pointCount(metric: Metric): number {
  const data =
    metric.gauge ?? metric.sum ?? metric.histogram ?? metric.exponentialHistogram ?? metric.summary;
  return data?.dataPoints.length ?? 0;
}

/**
 * Turns a decoded OTLP request back into usage samples: points with the same cluster, job,
 * node, step and time form one sample. Attributes are looked up on the point, then the scope,
 * then the resource, so it does not matter at which level a gateway put them. Besides Jobsight's
 * own metrics (under their convention names when under Jobsight's instrumentation scope, under
 * their `jobsight.*` and 0.1 names anywhere) it reads the OpenTelemetry semantic-convention
 * inputs of `standardInputs`, finding their job from resource attributes. Points of aggregate metrics, points without a job identity
 * and points that would make an invalid sample are rejected and counted with their reason, for
 * the OTLP partial-success response; points of unknown metrics and standard inputs that name no
 * job are counted as skipped (`skipped`), not rejected. Points flagged "no recorded value" are
 * skipped without being counted.
 *
 * @example
 * ```ts
 * const { samples, keys, rejected } = decodeObservations(decodeExportMetricsRequest(body));
 * await storeOnce(samples, keys);
 * return createExportMetricsResponse(rejected.count, describeRejections(rejected));
 * ```
 */
export function decodeObservations(
  request: ExportMetricsServiceRequest,
  options: DecodeObservationsOptions = {},
): DecodedObservations {
  const collector = new ObservationCollector(options);
  for (const rm of request.resourceMetrics) {
    const resourceAttributes = new Map<string, ScalarAttribute>();
    mergeAttributes(resourceAttributes, rm.resource?.attributes);
    for (const sm of rm.scopeMetrics) {
      const scopeAttributes = new Map(resourceAttributes);
      mergeAttributes(scopeAttributes, sm.scope?.attributes);
      const attributes = new PointAttributes(scopeAttributes);
      const own = isOwnScope(sm.scope?.name);
      for (const metric of sm.metrics) {
        const temporality = metric.sum?.aggregationTemporality;
        const mapping = collector.mappingOf(metric.name, metric.unit, temporality, own);
        if (!mapping) {
          collector.skipUnmapped(metric.name, pointCount(metric));
          continue;
        }
        const points = metric.gauge?.dataPoints ?? metric.sum?.dataPoints;
        if (!points) {
          collector.rejectWrongType(metric.name, pointCount(metric));
          continue;
        }
        for (const point of points) {
          if ((point.flags & OtlpDataPointFlags.NO_RECORDED_VALUE_MASK) !== 0) continue;
          const value =
            point.asInt !== undefined ? intPointValue(point.asInt) : (point.asDouble ?? "point has no value");
          collector.addPoint(mapping, value, point.timeUnixNano, attributes.reset(point.attributes));
        }
      }
    }
  }
  return collector.finish();
}

/**
 * A one-line English summary of rejections for the OTLP `error_message`; empty when none.
 *
 * @example
 * ```ts
 * describeRejections({ count: 3, reasons: { "unknown metric: x": 3 } }); // "3 data points rejected: unknown metric: x (3)"
 * ```
 */
export function describeRejections(rejected: ObservationRejections): string {
  if (rejected.count === 0) return "";
  const parts = Object.entries(rejected.reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} (${n})`);
  return `${rejected.count} data point${rejected.count === 1 ? "" : "s"} rejected: ${parts.join("; ")}`;
}
