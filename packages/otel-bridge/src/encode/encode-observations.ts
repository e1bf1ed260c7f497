import { type UsageSample, validateUsageSample } from "@jobsight/schemas";
import { ObservationEncodeError } from "../errors.js";
import { keyValues, type ScalarAttribute } from "../mapping/attribute-values.js";
import type { MetricDefinition } from "../mapping/metric-definitions.js";
import {
  type MetricNameSet,
  ObservationAttributes as O,
  OBSERVATION_SCOPE_NAME,
} from "../mapping/metric-names.js";
import { observationMappings } from "../mapping/observation-mapping.js";
import {
  type ExportMetricsServiceRequest,
  type Metric,
  type NumberDataPoint,
  OtlpAggregationTemporality,
  type ResourceMetrics,
} from "../otlp/otlp-types.js";
import { rfc3339ToUnixNano } from "../otlp/unix-nano.js";

/** Version of the metric mapping, sent as the instrumentation scope version (`1`: the 0.1 `legacy` names). */
export const OBSERVATION_MAPPING_VERSION = "2";

const LEGACY_MAPPING_VERSION = "1";

/** Options of {@link encodeObservations}. */
export interface EncodeObservationsOptions {
  /**
   * Written as the `jobsight.scheduler` resource attribute.
   * @default undefined (not written)
   */
  scheduler?: "slurm" | "kubernetes";
  /**
   * The `service.name` resource attribute.
   * @default "jobsight-collector"
   */
  serviceName?: string;
  /**
   * More resource attributes (e.g. `service.version`); they never replace the ones above.
   * @default {}
   */
  resourceAttributes?: Readonly<Record<string, ScalarAttribute>>;
  /**
   * Which names to write: the OpenTelemetry semantic-convention names, or the `jobsight.*` names
   * of release 0.1 for dashboards and rules not yet moved over (this compatibility goes away in
   * the next release). Jobsight's receiver reads both.
   * @default "conventions"
   */
  names?: MetricNameSet;
  /**
   * Check every sample against the UsageSample schema first and throw on the first bad one.
   * @default true
   */
  validate?: boolean;
}

/** Attributes that identify the sample a point belongs to. */
function identityAttributes(sample: UsageSample): Array<[string, ScalarAttribute]> {
  const out: Array<[string, ScalarAttribute]> = [[O.jobId, sample.jobId]];
  if (sample.step !== undefined) out.push([O.step, sample.step]);
  if (sample.user !== undefined) out.push([O.user, sample.user]);
  if (sample.final) out.push([O.final, true]);
  return out;
}

/** Builds a Metric from its definition and points, or nothing when there are no points. */
export function metricOf(
  definition: MetricDefinition,
  points: NumberDataPoint[],
  names: MetricNameSet = "conventions",
): Metric | undefined {
  if (points.length === 0) return undefined;
  const metric: Metric = {
    name: names === "legacy" ? (definition.legacyName ?? definition.name) : definition.name,
    description: definition.description,
    unit: definition.unit,
    metadata: [],
  };
  if (definition.instrument === "counter") {
    metric.sum = {
      dataPoints: points,
      aggregationTemporality: OtlpAggregationTemporality.CUMULATIVE,
      isMonotonic: true,
    };
  } else metric.gauge = { dataPoints: points };
  return metric;
}

/** A number point at `timeUnixNano`; the start time of a cgroup counter is unknown, so it is 0. */
export function numberPoint(
  definition: MetricDefinition,
  value: number,
  timeUnixNano: bigint,
  attributes: Iterable<readonly [string, ScalarAttribute]>,
): NumberDataPoint {
  const point: NumberDataPoint = {
    attributes: keyValues(attributes),
    startTimeUnixNano: 0n,
    timeUnixNano,
    exemplars: [],
    flags: 0,
  };
  if (definition.valueType === "int") point.asInt = BigInt(value);
  else point.asDouble = value;
  return point;
}

function resourceMetricsFor(
  samples: readonly UsageSample[],
  times: readonly bigint[],
  options: EncodeObservationsOptions,
): ResourceMetrics {
  const { cluster, node } = samples[0];
  const resource: Array<[string, ScalarAttribute]> = [
    [O.serviceName, options.serviceName ?? "jobsight-collector"],
    [O.serviceInstanceId, `${cluster}/${node}`],
    [O.node, node],
    [O.cluster, cluster],
  ];
  if (options.scheduler) resource.push([O.scheduler, options.scheduler]);
  const reserved = new Set(resource.map(([key]) => key));
  for (const [key, value] of Object.entries(options.resourceAttributes ?? {})) {
    if (!reserved.has(key)) resource.push([key, value]);
  }
  const names = options.names ?? "conventions";
  const metrics: Metric[] = [];
  for (const mapping of observationMappings) {
    const points: NumberDataPoint[] = [];
    samples.forEach((sample, i) => {
      const identity = identityAttributes(sample);
      for (const p of mapping.extract(sample, names)) {
        points.push(numberPoint(mapping.definition, p.value, times[i], [...identity, ...p.attributes]));
      }
    });
    const metric = metricOf(mapping.definition, points, names);
    if (metric) metrics.push(metric);
  }
  return {
    resource: { attributes: keyValues(resource), droppedAttributesCount: 0, entityRefs: [] },
    scopeMetrics: [
      {
        scope: {
          name: OBSERVATION_SCOPE_NAME,
          version: names === "legacy" ? LEGACY_MAPPING_VERSION : OBSERVATION_MAPPING_VERSION,
          attributes: [],
          droppedAttributesCount: 0,
        },
        metrics,
        schemaUrl: "",
      },
    ],
    schemaUrl: "",
  };
}

/** Parses and (optionally) validates a sample, throwing a precise error. */
export function checkedSampleTime(sample: UsageSample, index: number, validate: boolean): bigint {
  if (validate) {
    const result = validateUsageSample(sample);
    if (!result.ok) {
      const detail = result.errors.map((e) => `${e.path || "/"}: ${e.message}`).join("; ");
      throw new ObservationEncodeError(`samples[${index}] is not a valid UsageSample: ${detail}`);
    }
  }
  const nanos = rfc3339ToUnixNano(sample.time);
  if (nanos === undefined)
    throw new ObservationEncodeError(`samples[${index}].time is not an RFC 3339 timestamp`);
  return nanos;
}

/**
 * Encodes usage samples as one OTLP `ExportMetricsServiceRequest`, one `ResourceMetrics` per
 * (cluster, node), every point stamped with its sample's ORIGINAL time so spooled samples sent
 * late land where they belong. Readings are gauges; cgroup counters (CPU time, I/O, OOM events)
 * are cumulative monotonic sums. Names and units: see `jobMetricDefinitions`; the semantic
 * conventions' by default, the 0.1 `jobsight.*` ones with `names: "legacy"`.
 *
 * @throws {ObservationEncodeError} for a sample that fails the UsageSample schema.
 * @example
 * ```ts
 * const request = encodeObservations(samples, { scheduler: "slurm" });
 * const body = encodeExportMetricsRequest(request); // or toSdkResourceMetrics(request) for the exporter
 * ```
 */
export function encodeObservations(
  samples: readonly UsageSample[],
  options: EncodeObservationsOptions = {},
): ExportMetricsServiceRequest {
  const groups = new Map<string, { samples: UsageSample[]; times: bigint[] }>();
  samples.forEach((sample, i) => {
    const time = checkedSampleTime(sample, i, options.validate ?? true);
    const key = `${sample.cluster}\u0000${sample.node}`;
    let group = groups.get(key);
    if (!group) {
      group = { samples: [], times: [] };
      groups.set(key, group);
    }
    group.samples.push(sample);
    group.times.push(time);
  });
  return {
    resourceMetrics: [...groups.values()].map((g) => resourceMetricsFor(g.samples, g.times, options)),
  };
}
