import type { UsageSample } from "@jobsight/schemas";
import { keyValues, type ScalarAttribute } from "../mapping/attribute-values.js";
import { aggregateMetricDefinitions } from "../mapping/metric-definitions.js";
import {
  AggregateMetricNames as A,
  ObservationAttributes as O,
  OBSERVATION_SCOPE_NAME,
} from "../mapping/metric-names.js";
import type {
  ExportMetricsServiceRequest,
  Metric,
  NumberDataPoint,
  ResourceMetrics,
} from "../otlp/otlp-types.js";
import {
  checkedSampleTime,
  type EncodeObservationsOptions,
  metricOf,
  numberPoint,
  OBSERVATION_MAPPING_VERSION,
} from "./encode-observations.js";

/** What aggregated series can be split by. */
export type AggregateGroupKey = "user" | "partition" | "node";

/** Options of {@link encodeAggregatedObservations}. */
export interface EncodeAggregatedObservationsOptions extends EncodeObservationsOptions {
  /**
   * Attributes each series is split by; every other job detail is summed away.
   * @default ["user", "node"]
   */
  groupBy?: readonly AggregateGroupKey[];
  /**
   * Samples whose times fall in the same window of this many milliseconds are combined.
   * @default 60000
   */
  windowMs?: number;
  /**
   * The partition (queue) of a sample's job; samples carry none, the controller knows it.
   * @default () => undefined (reported as "unknown")
   */
  partitionOf?: (sample: UsageSample) => string | undefined;
}

const definitions = new Map(aggregateMetricDefinitions.map((d) => [d.name, d]));

interface Group {
  cluster: string;
  attributes: Array<[string, ScalarAttribute]>;
  /** Latest sample per job, node and step. */
  latest: Map<string, { sample: UsageSample; time: bigint }>;
}

/** The samples that describe each job on each node without counting it twice. */
function perJobSamples(group: Group): Array<{ sample: UsageSample; time: bigint }> {
  const byJobNode = new Map<string, Array<{ sample: UsageSample; time: bigint }>>();
  for (const entry of group.latest.values()) {
    const key = `${entry.sample.jobId}\u0000${entry.sample.node}`;
    byJobNode.set(key, [...(byJobNode.get(key) ?? []), entry]);
  }
  // A whole-job reading (no step) already contains its steps; use the steps only without one.
  return [...byJobNode.values()].flatMap((entries) => {
    const whole = entries.filter((e) => e.sample.step === undefined);
    return whole.length > 0 ? whole : entries;
  });
}

function aggregatePoints(group: Group): Map<string, NumberDataPoint> {
  const entries = perJobSamples(group);
  let time = 0n;
  for (const e of entries) if (e.time > time) time = e.time;
  const sum = (values: Array<number | undefined>) => {
    const present = values.filter((v): v is number => v !== undefined);
    return present.length === 0 ? undefined : present.reduce((a, b) => a + b, 0);
  };
  const samples = entries.map((e) => e.sample);
  const gpus = samples.flatMap((s) => s.gpus ?? []);
  const values: Array<[string, number | undefined]> = [
    [A.jobs, new Set(samples.map((s) => s.jobId)).size],
    [A.memoryUsage, sum(samples.map((s) => s.memory?.currentBytes))],
    [A.memoryLimit, sum(samples.map((s) => s.memory?.limitBytes))],
    [A.cpuLimit, sum(samples.map((s) => s.cpu?.limitCores))],
    [A.processCount, sum(samples.map((s) => s.pids))],
    [A.gpuCount, gpus.length > 0 ? gpus.length : undefined],
    [
      A.gpuUtilization,
      gpus.length > 0 ? gpus.reduce((a, g) => a + g.utilizationPercent, 0) / gpus.length / 100 : undefined,
    ],
    [A.gpuMemoryUsage, sum(gpus.map((g) => g.memoryUsedBytes))],
  ];
  const out = new Map<string, NumberDataPoint>();
  for (const [name, value] of values) {
    if (value !== undefined)
      out.set(name, numberPoint(definitions.get(name)!, value, time, group.attributes));
  }
  return out;
}

/**
 * Encodes usage samples as low-cardinality aggregates for Prometheus-style backends: per
 * cluster, time window and the chosen grouping (user, partition, node), the number of jobs and
 * the sums of their memory, CPU limits, tasks and GPU use, as gauges named `jobsight.jobs.*`.
 * No job id reaches the backend. Jobsight's own receiver refuses these (they are not samples).
 *
 * @throws {ObservationEncodeError} for a sample that fails the UsageSample schema.
 * @example
 * ```ts
 * const request = encodeAggregatedObservations(samples, { groupBy: ["user", "partition"], partitionOf });
 * ```
 */
export function encodeAggregatedObservations(
  samples: readonly UsageSample[],
  options: EncodeAggregatedObservationsOptions = {},
): ExportMetricsServiceRequest {
  const groupBy = options.groupBy ?? ["user", "node"];
  const windowNanos = BigInt(Math.max(1, Math.round(options.windowMs ?? 60_000))) * 1_000_000n;
  const groups = new Map<string, Group>();
  const nodesByCluster = new Map<string, Set<string>>();
  samples.forEach((sample, i) => {
    const time = checkedSampleTime(sample, i, options.validate ?? true);
    const attributes: Array<[string, ScalarAttribute]> = [];
    for (const key of groupBy) {
      if (key === "user") attributes.push([O.user, sample.user ?? "unknown"]);
      if (key === "node") attributes.push([O.node, sample.node]);
      if (key === "partition") attributes.push([O.partition, options.partitionOf?.(sample) ?? "unknown"]);
    }
    const key = [sample.cluster, time / windowNanos, ...attributes.map(([, v]) => String(v))].join("\u0000");
    let group = groups.get(key);
    if (!group) {
      group = { cluster: sample.cluster, attributes, latest: new Map() };
      groups.set(key, group);
    }
    const job = `${sample.jobId}\u0000${sample.node}\u0000${sample.step ?? ""}`;
    const previous = group.latest.get(job);
    if (!previous || previous.time <= time) group.latest.set(job, { sample, time });
    nodesByCluster.set(sample.cluster, (nodesByCluster.get(sample.cluster) ?? new Set()).add(sample.node));
  });

  const byCluster = new Map<string, Map<string, NumberDataPoint[]>>();
  for (const group of groups.values()) {
    const metrics = byCluster.get(group.cluster) ?? new Map<string, NumberDataPoint[]>();
    byCluster.set(group.cluster, metrics);
    for (const [name, point] of aggregatePoints(group))
      metrics.set(name, [...(metrics.get(name) ?? []), point]);
  }
  const resourceMetrics: ResourceMetrics[] = [...byCluster].map(([cluster, points]) => {
    const nodes = [...(nodesByCluster.get(cluster) ?? [])];
    const resource: Array<[string, ScalarAttribute]> = [
      [O.serviceName, options.serviceName ?? "jobsight-collector"],
      // One sending node keeps its own instance, so per-node partial sums stay separate series.
      [O.serviceInstanceId, nodes.length === 1 ? `${cluster}/${nodes[0]}` : cluster],
      [O.cluster, cluster],
    ];
    if (options.scheduler) resource.push([O.scheduler, options.scheduler]);
    const reserved = new Set(resource.map(([k]) => k));
    for (const [k, v] of Object.entries(options.resourceAttributes ?? {}))
      if (!reserved.has(k)) resource.push([k, v]);
    const metrics = aggregateMetricDefinitions
      .map((d) => metricOf(d, points.get(d.name) ?? []))
      .filter((m): m is Metric => m !== undefined);
    return {
      resource: { attributes: keyValues(resource), droppedAttributesCount: 0, entityRefs: [] },
      scopeMetrics: [
        {
          scope: {
            name: OBSERVATION_SCOPE_NAME,
            version: OBSERVATION_MAPPING_VERSION,
            attributes: [],
            droppedAttributesCount: 0,
          },
          metrics,
          schemaUrl: "",
        },
      ],
      schemaUrl: "",
    };
  });
  return { resourceMetrics };
}
