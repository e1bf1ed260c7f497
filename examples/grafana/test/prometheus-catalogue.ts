/**
 * What Prometheus holds once Jobsight's metrics went through the Collector's Prometheus branch:
 * each metric's Prometheus name, derived from the bridge's own definitions, and the labels its
 * series can carry, read from what the bridge actually encodes (per-job and aggregated) and edited
 * as the branch's transform processor edits them.
 */
import {
  aggregateMetricDefinitions,
  type ExportMetricsServiceRequest,
  encodeAggregatedObservations,
  encodeObservations,
  jobMetricDefinitions,
  type MetricDefinition,
} from "@jobsight/otel-bridge";
import type { LabelEdits } from "./collector-config.js";
import { exporterLabels, prometheusLabelName, prometheusMetricName } from "./prometheus-names.js";

type UsageSample = Parameters<typeof encodeObservations>[0][number];

/** One metric as Prometheus sees it. */
export interface PrometheusMetric {
  otlpName: string;
  mode: "per-job" | "aggregated";
  labels: ReadonlySet<string>;
}

/** Prometheus metric name → what it is. */
export type PrometheusCatalogue = ReadonlyMap<string, PrometheusMetric>;

/** Every section of a sample filled in, so that every per-job metric and attribute is encoded. */
const wholeJob: UsageSample = {
  cluster: "hpc1",
  jobId: "4242",
  node: "gpu07",
  time: "2026-12-01T10:00:00Z",
  user: "alice",
  final: true,
  memory: {
    currentBytes: 8e9,
    peakBytes: 9e9,
    limitBytes: 16e9,
    anonBytes: 6e9,
    fileBytes: 1e9,
    shmemBytes: 5e8,
    swapBytes: 0,
    oomEvents: 1,
    oomKillEvents: 1,
  },
  cpu: {
    usageSeconds: 3600,
    userSeconds: 3000,
    systemSeconds: 600,
    periods: 1000,
    throttledPeriods: 10,
    throttledSeconds: 2.5,
    limitCores: 8,
    threads: 12,
    runnableThreads: 9,
    nodeLoad1: 9.5,
    nodeRunnable: 9,
  },
  io: { readBytes: 1e9, writeBytes: 2e9, readOps: 1000, writeOps: 2000 },
  pids: 12,
  pressure: { cpuSome: 1, memorySome: 2, memoryFull: 1, ioSome: 3, ioFull: 1 },
  gpus: [
    {
      index: 0,
      uuid: "GPU-5f3c0000-0000-0000-0000-000000000000",
      pciBusId: "00000000:3B:00.0",
      utilizationPercent: 87,
      memoryUsedBytes: 30e9,
      memoryTotalBytes: 80e9,
      powerWatts: 310,
      temperatureCelsius: 64,
    },
  ],
  processes: [{ pid: 1234, command: "python", rssBytes: 5e9, state: "R" }],
  progress: { done: 1200, total: 5000, unit: "step" },
};

/** A step reading, which adds `jobsight.job.step`. */
const step: UsageSample = { ...wholeJob, step: "batch", final: undefined };

/** The requests the bridge builds for the complete samples, in per-job and in aggregated mode. */
export function bridgeRequests(): Record<PrometheusMetric["mode"], ExportMetricsServiceRequest> {
  const samples = [wholeJob, step];
  return {
    "per-job": encodeObservations(samples, { scheduler: "slurm" }),
    aggregated: encodeAggregatedObservations(samples, {
      scheduler: "slurm",
      groupBy: ["user", "partition", "node"],
      partitionOf: () => "gpu",
    }),
  };
}

/** Point attribute keys per metric name, with the resource's keys offered for copying. */
function encodedAttributes(
  request: ExportMetricsServiceRequest,
): Map<string, { point: Set<string>; resource: Set<string> }> {
  const out = new Map<string, { point: Set<string>; resource: Set<string> }>();
  for (const rm of request.resourceMetrics) {
    const resource = (rm.resource?.attributes ?? []).map((kv) => kv.key);
    for (const sm of rm.scopeMetrics) {
      for (const metric of sm.metrics) {
        const entry = out.get(metric.name) ?? { point: new Set<string>(), resource: new Set<string>() };
        out.set(metric.name, entry);
        for (const key of resource) entry.resource.add(key);
        for (const point of [...(metric.gauge?.dataPoints ?? []), ...(metric.sum?.dataPoints ?? [])])
          for (const kv of point.attributes) entry.point.add(kv.key);
      }
    }
  }
  return out;
}

/** The Prometheus name of a bridge metric definition. */
export function prometheusNameOf(definition: MetricDefinition): string {
  return prometheusMetricName({ name: definition.name, unit: definition.unit, kind: definition.instrument });
}

/**
 * The catalogue of Prometheus metrics the branch can produce, in both modes.
 *
 * @throws {Error} when a defined metric is missing from the encoded requests (the samples above
 *   no longer cover every metric) or two metrics would get the same Prometheus name.
 */
export function prometheusCatalogue(edits: LabelEdits): PrometheusCatalogue {
  const requests = bridgeRequests();
  const catalogue = new Map<string, PrometheusMetric>();
  const modes = [
    ["per-job", jobMetricDefinitions],
    ["aggregated", aggregateMetricDefinitions],
  ] as const;
  for (const [mode, definitions] of modes) {
    const encoded = encodedAttributes(requests[mode]);
    for (const definition of definitions) {
      const attributes = encoded.get(definition.name);
      if (!attributes)
        throw new Error(`${definition.name} is defined but the test samples do not produce it`);
      const keys = new Set(attributes.point);
      for (const { to, from } of edits.copies) if (attributes.resource.has(from)) keys.add(to);
      for (const key of edits.deletes) keys.delete(key);
      const labels = new Set([...exporterLabels, ...[...keys].map(prometheusLabelName)]);
      const name = prometheusNameOf(definition);
      if (catalogue.has(name))
        throw new Error(`${definition.name} and ${catalogue.get(name)?.otlpName} both become ${name}`);
      catalogue.set(name, { otlpName: definition.name, mode, labels });
    }
  }
  return catalogue;
}
