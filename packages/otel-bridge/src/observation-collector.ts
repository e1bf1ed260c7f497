import { type UsageSample, validateUsageSample } from "@jobsight/schemas";
import type {
  DecodedObservations,
  DecodeObservationsOptions,
  ObservationRejections,
} from "./decode-observations.js";
import { aggregateMetricDefinitions, ObservationAttributes as O } from "./metric-names.js";
import {
  type ObservationMapping,
  observationMappings,
  requiredFields,
  type SampleDraft,
} from "./observation-mapping.js";
import type { AttributeLookup } from "./point-attributes.js";
import { usageSampleKeyAt } from "./sample-key.js";
import { unixNanoToRfc3339 } from "./unix-nano.js";

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

function identityText(attributes: AttributeLookup, key: string): string | undefined {
  const value = attributes.get(key);
  if (typeof value === "number") return String(value);
  return typeof value === "string" && value !== "" ? value : undefined;
}

function emptyDraft(): SampleDraft {
  return { points: {} };
}

function pointsOf(draft: SampleDraft): number {
  let n = 0;
  for (const key in draft.points) n += draft.points[key];
  return n;
}

/** Drops sections the schema cannot accept (a required field is missing) and counts their points. */
function dropIncompleteSections(draft: SampleDraft, rejections: Rejections): void {
  for (const name of ["memory", "cpu", "io"] as const) {
    const rule = requiredFields[name];
    const section = draft[name];
    if (section && rule.fields.some((f) => section[f] === undefined)) {
      rejections.add(draft.points[name] ?? 0, rule.because);
      draft.points[name] = 0;
      draft[name] = undefined;
    }
  }
  if (!draft.gpus) return;
  for (const [index, gpu] of draft.gpus) {
    if (requiredFields.gpu.fields.some((f) => gpu[f] === undefined)) {
      rejections.add(draft.points[`gpu:${index}`] ?? 0, requiredFields.gpu.because);
      draft.points[`gpu:${index}`] = 0;
      draft.gpus.delete(index);
    }
  }
}

function buildSample(pending: Pending): UsageSample | undefined {
  const { draft, identity } = pending;
  // A section is there exactly when a point filled it and it was not dropped since.
  if (pointsOf(draft) === 0) return undefined;
  const sample: Record<string, unknown> = {
    cluster: identity.cluster,
    jobId: identity.jobId,
    node: identity.node,
  };
  if (identity.step !== undefined) sample.step = identity.step;
  sample.time = unixNanoToRfc3339(pending.unixNano);
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
  readonly #cluster: string | undefined;
  // Entries in order of first appearance, found by identity and then by time.
  readonly #entries: Pending[] = [];
  readonly #byIdentity = new Map<string, Map<bigint, Pending>>();
  #last: { cluster: string; jobId: string; node: string; step: string; times: Map<bigint, Pending> } = {
    cluster: "",
    jobId: "",
    node: "",
    step: "\u0000",
    times: new Map(),
  };

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
    attributes: AttributeLookup,
  ): void {
    const rejections = this.#rejections;
    const name = mapping.definition.name;
    const cluster = identityText(attributes, O.cluster);
    if (cluster !== undefined && this.#cluster !== undefined && cluster !== this.#cluster) {
      rejections.add(1, `cluster ${cluster} is not this sender's cluster (${this.#cluster})`);
      return;
    }
    const jobId = identityText(attributes, O.jobId);
    const node = identityText(attributes, O.node);
    const step = identityText(attributes, O.step);
    if (typeof value === "string") {
      rejections.add(1, `${name}: ${value}`);
      return;
    }
    if (timeUnixNano === 0n) {
      rejections.add(1, "time_unix_nano is 0");
      return;
    }
    if (!cluster || !jobId || !node) {
      rejections.add(1, `missing ${O.cluster}, ${O.jobId} or ${O.node}`);
      return;
    }
    // Consecutive points mostly belong to the same job: reuse its identity and time index then.
    const s = step ?? "";
    let last = this.#last;
    if (cluster !== last.cluster || jobId !== last.jobId || node !== last.node || s !== last.step) {
      // Checked only when the identity changes: PostgreSQL text cannot store U+0000.
      if (`${cluster}${jobId}${node}${s}`.includes("\u0000")) {
        rejections.add(1, `${O.cluster}, ${O.jobId}, ${O.node} or ${O.step} holds U+0000`);
        return;
      }
      const id = `${cluster}\u0000${jobId}\u0000${node}\u0000${s}`;
      let times = this.#byIdentity.get(id);
      if (!times) {
        times = new Map();
        this.#byIdentity.set(id, times);
      }
      last = { cluster, jobId, node, step: s, times };
      this.#last = last;
    }
    let entry = last.times.get(timeUnixNano);
    if (!entry) {
      const identity = step === undefined ? { cluster, jobId, node } : { cluster, jobId, node, step };
      entry = { identity, unixNano: timeUnixNano, draft: emptyDraft() };
      last.times.set(timeUnixNano, entry);
      this.#entries.push(entry);
    }
    if (entry.user === undefined) {
      const user = identityText(attributes, O.user);
      if (user !== undefined && !user.includes("\u0000")) entry.user = user;
    }
    if (attributes.get(O.final) === true) entry.final = true;
    const outcome = mapping.apply(entry.draft, value, attributes);
    if ("reject" in outcome) rejections.add(1, outcome.reject);
    else {
      const points = entry.draft.points;
      points[outcome.section] = (points[outcome.section] ?? 0) + 1;
    }
  }

  /** The samples (each checked against the schema), their keys and every rejection. */
  finish(): DecodedObservations {
    const rejections = this.#rejections;
    const samples: UsageSample[] = [];
    const accepted: Pending[] = [];
    for (const entry of this.#entries) {
      dropIncompleteSections(entry.draft, rejections);
      const sample = buildSample(entry);
      if (!sample) continue;
      const checked = validateUsageSample(sample);
      if (!checked.ok) {
        const first = checked.errors[0];
        rejections.add(pointsOf(entry.draft), `invalid sample: ${first.path || "/"}: ${first.message}`);
        continue;
      }
      samples.push(sample);
      accepted.push(entry);
    }
    // Keys are hashed only if someone reads them (a store with its own natural key does not).
    let keys: string[] | undefined;
    const result = { samples, rejected: rejections.result } as DecodedObservations;
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
