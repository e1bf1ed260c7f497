import { type UsageSample, validateUsageSample } from "@jobsight/schemas";
import { mergeAttributes, type ScalarAttribute } from "./attribute-values.js";
import { aggregateMetricDefinitions, ObservationAttributes as O } from "./metric-names.js";
import {
  type ObservationMapping,
  observationMappings,
  requiredFields,
  type SampleDraft,
} from "./observation-mapping.js";
import {
  type ExportMetricsServiceRequest,
  type Metric,
  type NumberDataPoint,
  OtlpDataPointFlags,
} from "./otlp-types.js";
import { type AttributeLookup, PointAttributes } from "./point-attributes.js";
import { usageSampleKeyAt } from "./sample-key.js";
import { unixNanoToRfc3339 } from "./unix-nano.js";

/** Points that did not become part of a sample, and why (reason -> number of points). */
export interface ObservationRejections {
  count: number;
  reasons: Record<string, number>;
}

/** What {@link decodeObservations} found in one request. */
export interface DecodedObservations {
  /** One sample per (cluster, job, node, step, time), in order of first appearance. */
  samples: UsageSample[];
  /** `keys[i]` is the idempotency key of `samples[i]` (see `usageSampleKey`). */
  keys: string[];
  /** Rejected data points, for the OTLP partial-success response. */
  rejected: ObservationRejections;
}

/** Options of {@link decodeObservations}. */
export interface DecodeObservationsOptions {
  /**
   * Distinct rejection reasons kept; further ones are counted under "other reasons".
   * @default 20
   */
  maxReasons?: number;
}

const mappingsByName = new Map<string, ObservationMapping>(
  observationMappings.map((m) => [m.definition.name, m]),
);
const aggregateNames = new Set(aggregateMetricDefinitions.map((d) => d.name));

interface Pending {
  identity: { cluster: string; jobId: string; node: string; step?: string };
  unixNano: bigint;
  user?: string;
  final?: true;
  draft: SampleDraft;
}

class Rejections {
  readonly result: ObservationRejections = { count: 0, reasons: {} };
  private distinct = 0;
  constructor(private readonly maxReasons: number) {}

  add(points: number, reason: string): void {
    if (points <= 0) return;
    this.result.count += points;
    let key = reason;
    if (this.result.reasons[key] === undefined) {
      if (this.distinct >= this.maxReasons) key = "other reasons";
      else this.distinct++;
    }
    this.result.reasons[key] = (this.result.reasons[key] ?? 0) + points;
  }
}

function pointCount(metric: Metric): number {
  const data =
    metric.gauge ?? metric.sum ?? metric.histogram ?? metric.exponentialHistogram ?? metric.summary;
  return data?.dataPoints.length ?? 0;
}

function identityText(attributes: AttributeLookup, key: string): string | undefined {
  const value = attributes.get(key);
  if (typeof value === "number") return String(value);
  return typeof value === "string" && value !== "" ? value : undefined;
}

function pointValue(point: NumberDataPoint): number | string {
  if (point.asInt !== undefined) {
    const n = Number(point.asInt);
    return Number.isSafeInteger(n) ? n : "integer value beyond 2^53";
  }
  return point.asDouble ?? "point has no value";
}

function emptyDraft(): SampleDraft {
  return {
    memory: {},
    cpu: {},
    io: {},
    pressure: {},
    gpus: new Map(),
    processes: new Map(),
    points: new Map(),
  };
}

/** Drops sections the schema cannot accept (a required field is missing) and counts their points. */
function dropIncompleteSections(draft: SampleDraft, rejections: Rejections): void {
  for (const name of ["memory", "cpu", "io"] as const) {
    const rule = requiredFields[name];
    const section = draft[name];
    if (Object.keys(section).length > 0 && rule.fields.some((f) => section[f] === undefined)) {
      rejections.add(draft.points.get(name) ?? 0, rule.because);
      draft.points.delete(name);
      draft[name] = {};
    }
  }
  for (const [index, gpu] of draft.gpus) {
    if (requiredFields.gpu.fields.some((f) => gpu[f] === undefined)) {
      rejections.add(draft.points.get(`gpu:${index}`) ?? 0, requiredFields.gpu.because);
      draft.points.delete(`gpu:${index}`);
      draft.gpus.delete(index);
    }
  }
}

function buildSample(pending: Pending): UsageSample | undefined {
  const { draft } = pending;
  const sample: Record<string, unknown> = { ...pending.identity, time: unixNanoToRfc3339(pending.unixNano) };
  if (pending.user !== undefined) sample.user = pending.user;
  let filled = false;
  for (const name of ["memory", "cpu", "io", "pressure"] as const) {
    if (Object.keys(draft[name]).length > 0) {
      sample[name] = draft[name];
      filled = true;
    }
  }
  if (draft.pids !== undefined) {
    sample.pids = draft.pids;
    filled = true;
  }
  if (draft.gpus.size > 0) {
    sample.gpus = [...draft.gpus.values()];
    filled = true;
  }
  if (draft.processes.size > 0) {
    sample.processes = [...draft.processes.values()];
    filled = true;
  }
  if (pending.final) sample.final = true;
  return filled ? (sample as UsageSample) : undefined;
}

/**
 * Turns a decoded OTLP request back into usage samples: points with the same cluster, job,
 * node, step and time form one sample. Attributes are looked up on the point, then the scope,
 * then the resource, so it does not matter at which level a gateway put them. Points of unknown
 * or aggregate metrics, points without a job identity and points that would make an invalid
 * sample are rejected and counted with their reason, for the OTLP partial-success response.
 * Points flagged "no recorded value" are skipped without being counted.
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
  const rejections = new Rejections(options.maxReasons ?? 20);
  // Entries in order of first appearance, found by identity and then by time.
  const entries: Pending[] = [];
  const byIdentity = new Map<string, Map<bigint, Pending>>();
  let last = { cluster: "", jobId: "", node: "", step: "", id: "" };
  for (const rm of request.resourceMetrics) {
    const resourceAttributes = new Map<string, ScalarAttribute>();
    mergeAttributes(resourceAttributes, rm.resource?.attributes);
    for (const sm of rm.scopeMetrics) {
      const scopeAttributes = new Map(resourceAttributes);
      mergeAttributes(scopeAttributes, sm.scope?.attributes);
      const attributes = new PointAttributes(scopeAttributes);
      for (const metric of sm.metrics) {
        const mapping = mappingsByName.get(metric.name);
        const points = metric.gauge?.dataPoints ?? metric.sum?.dataPoints;
        if (!mapping) {
          const why = aggregateNames.has(metric.name)
            ? "aggregate metric, not a per-job sample"
            : "unknown metric";
          rejections.add(pointCount(metric), `${why}: ${metric.name}`);
          continue;
        }
        if (!points) {
          rejections.add(pointCount(metric), `${metric.name}: expected a gauge or a sum`);
          continue;
        }
        for (const point of points) {
          if ((point.flags & OtlpDataPointFlags.NO_RECORDED_VALUE_MASK) !== 0) continue;
          attributes.reset(point.attributes);
          const value = pointValue(point);
          const cluster = identityText(attributes, O.cluster);
          const jobId = identityText(attributes, O.jobId);
          const node = identityText(attributes, O.node);
          const step = identityText(attributes, O.step);
          if (typeof value === "string") rejections.add(1, `${metric.name}: ${value}`);
          else if (point.timeUnixNano === 0n) rejections.add(1, "time_unix_nano is 0");
          else if (!cluster || !jobId || !node) {
            rejections.add(1, `missing ${O.cluster}, ${O.jobId} or ${O.node}`);
          } else {
            // Consecutive points mostly belong to the same job: reuse its identity key then.
            const s = step ?? "";
            if (cluster !== last.cluster || jobId !== last.jobId || node !== last.node || s !== last.step) {
              last = { cluster, jobId, node, step: s, id: `${cluster}\u0000${jobId}\u0000${node}\u0000${s}` };
            }
            let times = byIdentity.get(last.id);
            if (!times) {
              times = new Map();
              byIdentity.set(last.id, times);
            }
            let entry = times.get(point.timeUnixNano);
            if (!entry) {
              const identity = step === undefined ? { cluster, jobId, node } : { cluster, jobId, node, step };
              entry = { identity, unixNano: point.timeUnixNano, draft: emptyDraft() };
              times.set(point.timeUnixNano, entry);
              entries.push(entry);
            }
            const user = identityText(attributes, O.user);
            if (user !== undefined) entry.user ??= user;
            if (attributes.get(O.final) === true) entry.final = true;
            const outcome = mapping.apply(entry.draft, value, attributes);
            if ("reject" in outcome) rejections.add(1, outcome.reject);
            else entry.draft.points.set(outcome.section, (entry.draft.points.get(outcome.section) ?? 0) + 1);
          }
        }
      }
    }
  }

  const samples: UsageSample[] = [];
  const keys: string[] = [];
  for (const entry of entries) {
    dropIncompleteSections(entry.draft, rejections);
    const sample = buildSample(entry);
    if (!sample) continue;
    const checked = validateUsageSample(sample);
    if (!checked.ok) {
      const first = checked.errors[0];
      let points = 0;
      for (const n of entry.draft.points.values()) points += n;
      rejections.add(points, `invalid sample: ${first.path || "/"}: ${first.message}`);
      continue;
    }
    samples.push(sample);
    keys.push(usageSampleKeyAt(entry.identity, entry.unixNano));
  }
  return { samples, keys, rejected: rejections.result };
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
