import type { UsageSample } from "@jobsight/schemas";
import { type Attributes, type HrTime, ValueType } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
  type ResourceMetrics as SdkResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import { ObservationEncodeError } from "../errors.js";
import { scalarOf } from "../mapping/attribute-values.js";
import {
  type AnyValue,
  type ExportMetricsServiceRequest,
  type KeyValue,
  type Metric,
  type NumberDataPoint,
  OtlpAggregationTemporality,
} from "../otlp/otlp-types.js";
import { type EncodeObservationsOptions, encodeObservations } from "./encode-observations.js";

function hrTime(unixNano: bigint): HrTime {
  return [Number(unixNano / 1_000_000_000n), Number(unixNano % 1_000_000_000n)];
}

// The SDK's Attributes type admits only primitives and arrays, but its OTLP serialisers also
// write Uint8Array as bytesValue and plain objects as kvlistValue, so nothing is lost.
function jsValue(value: AnyValue): unknown {
  if ("arrayValue" in value) return value.arrayValue.values.map(jsValue);
  if ("kvlistValue" in value) return jsAttributes(value.kvlistValue.values);
  if ("bytesValue" in value) return value.bytesValue;
  return scalarOf(value);
}

function jsAttributes(list: readonly KeyValue[]): Attributes {
  const out: Record<string, unknown> = {};
  for (const kv of list) out[kv.key] = jsValue(kv.value);
  return out as Attributes;
}

function sdkTemporality(otlp: number): AggregationTemporality {
  return otlp === OtlpAggregationTemporality.DELTA
    ? AggregationTemporality.DELTA
    : AggregationTemporality.CUMULATIVE;
}

function numberPoints(points: readonly NumberDataPoint[]) {
  return points.map((p) => ({
    startTime: hrTime(p.startTimeUnixNano),
    endTime: hrTime(p.timeUnixNano),
    attributes: jsAttributes(p.attributes),
    value: p.asInt !== undefined ? Number(p.asInt) : (p.asDouble ?? 0),
  }));
}

function metricData(metric: Metric): MetricData {
  const numbers = metric.gauge?.dataPoints ?? metric.sum?.dataPoints ?? [];
  const descriptor = {
    name: metric.name,
    description: metric.description,
    unit: metric.unit,
    valueType: numbers.some((p) => p.asDouble !== undefined) ? ValueType.DOUBLE : ValueType.INT,
  };
  if (metric.gauge) {
    return {
      descriptor,
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.GAUGE,
      dataPoints: numberPoints(metric.gauge.dataPoints),
    };
  }
  if (metric.sum) {
    return {
      descriptor,
      aggregationTemporality: sdkTemporality(metric.sum.aggregationTemporality),
      dataPointType: DataPointType.SUM,
      isMonotonic: metric.sum.isMonotonic,
      dataPoints: numberPoints(metric.sum.dataPoints),
    };
  }
  if (metric.histogram) {
    return {
      descriptor: { ...descriptor, valueType: ValueType.DOUBLE },
      aggregationTemporality: sdkTemporality(metric.histogram.aggregationTemporality),
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: metric.histogram.dataPoints.map((p) => ({
        startTime: hrTime(p.startTimeUnixNano),
        endTime: hrTime(p.timeUnixNano),
        attributes: jsAttributes(p.attributes),
        value: {
          buckets: { boundaries: p.explicitBounds, counts: p.bucketCounts.map(Number) },
          count: Number(p.count),
          sum: p.sum,
          min: p.min,
          max: p.max,
        },
      })),
    };
  }
  throw new ObservationEncodeError(
    `metric ${metric.name}: only gauges, sums and histograms can go to the SDK exporter`,
  );
}

/**
 * Converts an OTLP request (as `encodeObservations` builds it) into the `ResourceMetrics` the
 * SDK exporters take, so `OTLPMetricExporter.export()` sends the points with their own
 * timestamps instead of the collection time a MeterProvider would stamp.
 *
 * @example
 * ```ts
 * for (const rm of toSdkResourceMetrics(encodeObservations(spooled))) {
 *   exporter.export(rm, (result) => { if (result.code === ExportResultCode.SUCCESS) spool.ack(batch); });
 * }
 * ```
 */
export function toSdkResourceMetrics(request: ExportMetricsServiceRequest): SdkResourceMetrics[] {
  return request.resourceMetrics.map((rm) => ({
    resource: resourceFromAttributes(jsAttributes(rm.resource?.attributes ?? [])),
    scopeMetrics: rm.scopeMetrics.map((sm) => ({
      scope: { name: sm.scope?.name ?? "", version: sm.scope?.version, schemaUrl: sm.schemaUrl || undefined },
      metrics: sm.metrics.map(metricData),
    })),
  }));
}

/**
 * Usage samples straight to exporter input: `toSdkResourceMetrics(encodeObservations(samples, options))`.
 *
 * @example
 * ```ts
 * const [rm] = observationsToResourceMetrics(samples, { scheduler: "slurm" });
 * exporter.export(rm, done);
 * ```
 */
export function observationsToResourceMetrics(
  samples: readonly UsageSample[],
  options: EncodeObservationsOptions = {},
): SdkResourceMetrics[] {
  return toSdkResourceMetrics(encodeObservations(samples, options));
}
