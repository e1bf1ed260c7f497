import type { UsageSample } from "@jobsight/schemas";
import { aggregateMetricDefinitions, ObservationAttributes as O } from "../mapping/metric-names.js";
import {
  type ObservationMapping,
  observationMappings,
  requiredFields,
  type SampleDraft,
} from "../mapping/observation-mapping.js";
import {
  CLUSTER,
  FINAL,
  type IdentityLookup,
  JOB_ID,
  NODE,
  STEP,
  USER,
} from "../mapping/point-attributes.js";
import { checkBuiltSample } from "../mapping/sample-check.js";
import { usageSampleKeyAt } from "../mapping/sample-key.js";
import { unixNanoToRfc3339 } from "../otlp/unix-nano.js";
import type { DecodedObservations, DecodeObservationsOptions } from "./decoded-observations.js";
import { Pending, type Series, Times } from "./pending-samples.js";
import { Rejections, SampleRejections } from "./rejections.js";

const mappingsByName = new Map<string, ObservationMapping>(
  observationMappings.map((m) => [m.definition.name, m]),
);
const aggregateNames = new Set(aggregateMetricDefinitions.map((d) => d.name));

function identityText(attributes: IdentityLookup, slot: number): string | undefined {
  const value = attributes.identity(slot);
  if (typeof value === "number") return String(value);
  return typeof value === "string" && value !== "" ? value : undefined;
}

function pointsOf(draft: SampleDraft): number {
  let n = 0;
  for (const key in draft.points) n += draft.points[key];
  return n;
}

const CHECKED_SECTIONS = ["memory", "cpu", "io"] as const;

function lacksField(section: Record<string, unknown>, fields: readonly string[]): boolean {
  for (const field of fields) if (section[field] === undefined) return true;
  return false;
}

/** Drops sections the schema cannot accept (a required field is missing) and counts their points. */
function dropIncompleteSections(draft: SampleDraft, reject: (points: number, reason: string) => void): void {
  for (const name of CHECKED_SECTIONS) {
    const rule = requiredFields[name];
    const section = draft[name];
    if (section && lacksField(section, rule.fields)) {
      reject(draft.points[name] ?? 0, rule.because);
      draft.points[name] = 0;
      draft[name] = undefined;
    }
  }
  if (!draft.gpus) return;
  for (const [index, gpu] of draft.gpus) {
    if (lacksField(gpu, requiredFields.gpu.fields)) {
      reject(draft.points[`gpu:${index}`] ?? 0, requiredFields.gpu.because);
      draft.points[`gpu:${index}`] = 0;
      draft.gpus.delete(index);
    }
  }
}

function buildSample(pending: Pending, times: TimeTexts): UsageSample | undefined {
  const { draft } = pending;
  // A section is there exactly when a point filled it and it was not dropped since.
  if (pointsOf(draft) === 0) return undefined;
  const sample: Record<string, unknown> = {
    cluster: pending.cluster,
    jobId: pending.jobId,
    node: pending.node,
  };
  if (pending.step !== undefined) sample.step = pending.step;
  sample.time = times.text(pending.timeLo, pending.timeHi);
  if (pending.user !== undefined) sample.user = pending.user;
  if (draft.memory) sample.memory = draft.memory;
  if (draft.cpu) sample.cpu = draft.cpu;
  if (draft.io) sample.io = draft.io;
  if (draft.pressure) sample.pressure = draft.pressure;
  if (draft.pids !== undefined) sample.pids = draft.pids;
  if (draft.gpus && draft.gpus.size > 0) sample.gpus = [...draft.gpus.values()];
  if (draft.processes && draft.processes.size > 0) sample.processes = [...draft.processes.values()];
  if (pending.final) sample.final = true;
  return sample as UsageSample;
}

/**
 * {@link unixNanoToRfc3339} of `hi · 2^32 + lo`, each distinct millisecond formatted once per
 * body: samples of many nodes and jobs share their collectors' ticks, and formatting a date was
 * a twentieth of decoding. Whole milliseconds (nearly every sample) need no BigInt: split so that
 * every intermediate stays an exact integer below 2^53.
 */
class TimeTexts {
  readonly #byMillisecond = new Map<number, string>();

  text(lo: number, hi: number): string {
    const below = hi * 967_296 + lo; // 2^32 = 4294 · 10^6 + 967296
    if (below % 1_000_000 !== 0) return unixNanoToRfc3339((BigInt(hi) << 32n) | BigInt(lo));
    const ms = hi * 4294 + below / 1_000_000;
    let text = this.#byMillisecond.get(ms);
    if (text === undefined) {
      text = new Date(ms).toISOString();
      this.#byMillisecond.set(ms, text);
    }
    return text;
  }
}

/** The value of an integer point, or why it cannot be used. */
export function intPointValue(value: bigint): number | string {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : "integer value beyond 2^53";
}

/**
 * Gathers data points into usage samples: the one place that decides how points group into
 * samples (same cluster, job, node, step and time), which are rejected and why, and what a
 * finished sample must satisfy. Both decoders (from a decoded request, and straight from
 * protobuf bytes) feed it, so they cannot disagree.
 */
export class ObservationCollector {
  readonly #rejections: Rejections;
  readonly #bySample = new SampleRejections();
  readonly #cluster: string | undefined;
  // Entries in order of first appearance, found by identity and then by time.
  readonly #entries: Pending[] = [];
  // Series by node, then job id, then (rarely more than one) cluster and step: the strings a
  // body repeats are the same objects, so these lookups hash nothing twice.
  readonly #series = new Map<string, Map<string, Series[]>>();
  #last: Series = { cluster: "", jobId: "", node: "", step: "\u0000", times: new Times() };

  constructor(options: DecodeObservationsOptions = {}) {
    this.#rejections = new Rejections(options.maxReasons ?? 20);
    this.#cluster = options.cluster;
  }

  /** The mapping of a per-job metric; `undefined` for unknown and aggregate metrics. */
  mappingOf(name: string): ObservationMapping | undefined {
    return mappingsByName.get(name);
  }

  /** Counts the points of a metric without a mapping (unknown, or an aggregate) as rejected. */
  rejectUnmapped(name: string, points: number): void {
    const why = aggregateNames.has(name) ? "aggregate metric, not a per-job sample" : "unknown metric";
    this.#rejections.add(points, `${why}: ${name}`);
  }

  /** Counts the points of a known metric sent as something else than a gauge or a sum. */
  rejectWrongType(name: string, points: number): void {
    this.#rejections.add(points, `${name}: expected a gauge or a sum`);
  }

  /**
   * Adds one point (not flagged "no recorded value"): `value` is its number, or why it has none
   * usable; `attributes` its point, scope and resource attributes, read only during the call.
   */
  addPoint(
    mapping: ObservationMapping,
    value: number | string,
    timeUnixNano: bigint,
    attributes: IdentityLookup,
  ): void {
    const lo = Number(timeUnixNano & 0xffffffffn);
    const hi = Number((timeUnixNano >> 32n) & 0xffffffffn);
    this.addPointAt(mapping, value, lo, hi, attributes);
  }

  /**
   * {@link addPoint} with the time as the low and high 32 bits of its Unix nanoseconds, so a
   * decoder reading points straight from bytes makes no BigInt per point.
   */
  addPointAt(
    mapping: ObservationMapping,
    value: number | string,
    timeLo: number,
    timeHi: number,
    attributes: IdentityLookup,
  ): void {
    const cluster = identityText(attributes, CLUSTER);
    const jobId = identityText(attributes, JOB_ID);
    const node = identityText(attributes, NODE);
    const step = identityText(attributes, STEP);
    if (cluster !== undefined && this.#cluster !== undefined && cluster !== this.#cluster) {
      const why = `cluster ${cluster} is not this sender's cluster (${this.#cluster})`;
      this.#rejectPoint(why, cluster, jobId, node, step, timeLo, timeHi);
      return;
    }
    if (typeof value === "string") {
      const why = `${mapping.definition.name}: ${value}`;
      this.#rejectPoint(why, cluster, jobId, node, step, timeLo, timeHi);
      return;
    }
    if (timeLo === 0 && timeHi === 0) {
      this.#rejectPoint("time_unix_nano is 0", cluster, jobId, node, step, timeLo, timeHi);
      return;
    }
    if (!cluster || !jobId || !node) {
      this.#rejections.add(1, `missing ${O.cluster}, ${O.jobId} or ${O.node}`);
      return;
    }
    // Consecutive points mostly belong to the same job: reuse its identity and time index then.
    const s = step ?? "";
    let last = this.#last;
    if (cluster !== last.cluster || jobId !== last.jobId || node !== last.node || s !== last.step) {
      const found = this.#seriesOf(cluster, jobId, node, s);
      if (!found) {
        const why = `${O.cluster}, ${O.jobId}, ${O.node} or ${O.step} holds U+0000`;
        this.#rejectPoint(why, cluster, jobId, node, step, timeLo, timeHi);
        return;
      }
      last = found;
      this.#last = last;
    }
    let entry = last.times.get(timeLo, timeHi);
    if (!entry) {
      entry = new Pending(cluster, jobId, node, step, timeLo, timeHi);
      last.times.add(entry);
      this.#entries.push(entry);
    }
    if (entry.user === undefined) {
      const user = identityText(attributes, USER);
      if (user !== undefined && !user.includes("\u0000")) entry.user = user;
    }
    if (attributes.identity(FINAL) === true) entry.final = true;
    const outcome = mapping.apply(entry.draft, value, attributes);
    if ("reject" in outcome) this.#rejectPoint(outcome.reject, cluster, jobId, node, step, timeLo, timeHi);
    else {
      const points = entry.draft.points;
      points[outcome.section] = (points[outcome.section] ?? 0) + 1;
    }
  }

  /** Counts one rejected point, under its sample too when the point names one. */
  #rejectPoint(
    reason: string,
    cluster: string | undefined,
    jobId: string | undefined,
    node: string | undefined,
    step: string | undefined,
    timeLo: number,
    timeHi: number,
  ): void {
    this.#rejections.add(1, reason);
    if (cluster && jobId && node)
      this.#bySample.add(1, reason, { cluster, jobId, node, step }, timeLo, timeHi);
  }

  /** The series of an identity, made on first sight; `undefined` when a field holds U+0000. */
  #seriesOf(cluster: string, jobId: string, node: string, step: string): Series | undefined {
    let byJob = this.#series.get(node);
    if (!byJob) {
      byJob = new Map();
      this.#series.set(node, byJob);
    }
    let list = byJob.get(jobId);
    if (!list) {
      list = [];
      byJob.set(jobId, list);
    }
    for (const series of list) if (series.cluster === cluster && series.step === step) return series;
    // Checked once per identity: PostgreSQL text cannot store U+0000.
    if (`${cluster}${jobId}${node}${step}`.includes("\u0000")) return undefined;
    const series: Series = { cluster, jobId, node, step, times: new Times() };
    list.push(series);
    return series;
  }

  /** The samples (each checked against the schema), their keys and every rejection. */
  finish(): DecodedObservations {
    const samples: UsageSample[] = [];
    const accepted: Pending[] = [];
    const times = new TimeTexts();
    for (const entry of this.#entries) {
      const reject = (points: number, reason: string) => {
        this.#rejections.add(points, reason);
        this.#bySample.add(points, reason, entry, entry.timeLo, entry.timeHi);
      };
      dropIncompleteSections(entry.draft, reject);
      const sample = buildSample(entry, times);
      if (!sample) continue;
      const checked = checkBuiltSample(sample);
      if (!checked.ok) {
        const first = checked.errors[0];
        reject(pointsOf(entry.draft), `invalid sample: ${first.path || "/"}: ${first.message}`);
        continue;
      }
      samples.push(sample);
      accepted.push(entry);
    }
    // Keys are hashed only if someone reads them (a store with its own natural key does not).
    let keys: string[] | undefined;
    const result = {
      samples,
      rejected: this.#rejections.result,
      rejectedSamples: this.#bySample.list(),
    } as DecodedObservations;
    Object.defineProperty(result, "keys", {
      enumerable: true,
      get: () => {
        keys ??= accepted.map((e) => usageSampleKeyAt(e.identity, e.unixNano));
        return keys;
      },
    });
    return result;
  }
}
