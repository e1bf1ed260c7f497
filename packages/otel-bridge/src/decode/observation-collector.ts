import { aggregateMetricDefinitions } from "../mapping/metric-definitions.js";
import { ObservationAttributes as O, OBSERVATION_SCOPE_NAME } from "../mapping/metric-names.js";
import { type ObservationMapping, observationMappings } from "../mapping/observation-mapping.js";
import {
  CLUSTER,
  FINAL,
  type IdentityLookup,
  JOB_ID,
  NODE,
  STEP,
  USER,
} from "../mapping/point-attributes.js";
import { usageSampleKeyAt } from "../mapping/sample-key.js";
import type { DecodedObservations, DecodeObservationsOptions } from "./decoded-observations.js";
import { finishSamples } from "./finished-samples.js";
import { Pending } from "./pending-samples.js";
import { Rejections, SampleRejections } from "./rejections.js";
import { SeriesIndex } from "./series-index.js";
import { Skipped } from "./skipped-points.js";
import { pointIdentity, type UnattributedOptions } from "./standard/standard-host-only.js";
import { type StandardMapping, standardMapping } from "./standard/standard-mappings.js";

// Jobsight's own names (`jobsight.*`, and the 0.1 names of the metrics that now carry a
// convention's) are Jobsight's whoever sends them. A convention name is Jobsight's own metric
// only under Jobsight's instrumentation scope: from anyone else it is a standard input.
const ownByName = new Map<string, ObservationMapping>();
const conventionByName = new Map<string, ObservationMapping>();
for (const m of observationMappings) {
  const { name, legacyName } = m.definition;
  (name.startsWith("jobsight.") ? ownByName : conventionByName).set(name, m);
  if (legacyName) ownByName.set(legacyName, m);
}
const aggregateNames = new Set(aggregateMetricDefinitions.map((d) => d.name));

/** Whether an instrumentation scope is the one Jobsight's encoders write (its own metrics). */
export function isOwnScope(scopeName: string | undefined): boolean {
  return scopeName === OBSERVATION_SCOPE_NAME;
}

function identityText(attributes: IdentityLookup, slot: number): string | undefined {
  const value = attributes.identity(slot);
  if (typeof value === "number") return String(value);
  return typeof value === "string" && value !== "" ? value : undefined;
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
  readonly #skipped: Skipped;
  readonly #bySample = new SampleRejections();
  readonly #cluster: string | undefined;
  readonly #unattributed: UnattributedOptions;
  // Entries in order of first appearance, found by identity and then by time.
  readonly #entries: Pending[] = [];
  readonly #series = new SeriesIndex();

  constructor(options: DecodeObservationsOptions = {}) {
    this.#rejections = new Rejections(options.maxReasons ?? 20);
    this.#skipped = new Skipped(options.maxReasons ?? 20);
    this.#cluster = options.cluster;
    this.#unattributed = {
      hostOnly: options.hostOnly === true,
      containerOnly: options.containerOnly === true,
    };
  }

  /**
   * The mapping of a per-job metric: Jobsight's own (by its `jobsight.*` or 0.1 name anywhere, by
   * its convention name under Jobsight's scope, `ownScope`), else a standard input sent in `unit`
   * (and, for a Sum, `temporality`); `undefined` for unknown and aggregate metrics.
   */
  mappingOf(name: string, unit = "", temporality?: number, ownScope = false): ObservationMapping | undefined {
    return (
      ownByName.get(name) ??
      (ownScope ? conventionByName.get(name) : undefined) ??
      standardMapping(name, unit, temporality)
    );
  }

  /**
   * Counts the points of a metric without a mapping: an aggregate (a Jobsight collector sending
   * to the wrong place) as rejected, anything else as skipped, since a gateway forwards all it has.
   */
  skipUnmapped(name: string, points: number): void {
    if (aggregateNames.has(name))
      this.#rejections.add(points, `aggregate metric, not a per-job sample: ${name}`);
    else this.#skipped.add(points, "unknown_metric", name);
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
    if ("standard" in mapping) {
      this.#addStandard(mapping as StandardMapping, value, timeLo, timeHi, attributes);
      return;
    }
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
    const user = identityText(attributes, USER);
    this.#place(mapping, value, timeLo, timeHi, attributes, cluster, jobId, node, step, user, undefined);
  }

  /**
   * A standard input's point: its job found from resource attributes; with `hostOnly`, a node-wide
   * point naming only its node goes to a host-only sample, with `containerOnly` a container's
   * naming only its container to a container-only one (job id `""`); else it is skipped.
   */
  #addStandard(
    mapping: StandardMapping,
    value: number | string,
    timeLo: number,
    timeHi: number,
    attributes: IdentityLookup,
  ): void {
    const found = pointIdentity(attributes, mapping.standard.scope, this.#cluster, this.#unattributed);
    if (typeof found === "string") {
      this.#skipped.add(1, found, mapping.definition.name);
      return;
    }
    const { cluster, jobId, node, step, user, containerId } = found;
    if (this.#cluster !== undefined && cluster !== this.#cluster) {
      const why = `cluster ${cluster} is not this sender's cluster (${this.#cluster})`;
      this.#rejectPoint(why, cluster, jobId, node, step, timeLo, timeHi);
      return;
    }
    if (typeof value === "string") {
      this.#rejectPoint(`${mapping.definition.name}: ${value}`, cluster, jobId, node, step, timeLo, timeHi);
      return;
    }
    if (timeLo === 0 && timeHi === 0) {
      this.#rejectPoint("time_unix_nano is 0", cluster, jobId, node, step, timeLo, timeHi);
      return;
    }
    this.#place(mapping, value, timeLo, timeHi, attributes, cluster, jobId, node, step, user, containerId);
  }

  /** Puts a point with a checked identity and value into its sample. */
  #place(
    mapping: ObservationMapping,
    value: number,
    timeLo: number,
    timeHi: number,
    attributes: IdentityLookup,
    cluster: string,
    jobId: string,
    node: string,
    step: string | undefined,
    user: string | undefined,
    containerId: string | undefined,
  ): void {
    const series = this.#series.get(cluster, jobId, node, step ?? "", containerId);
    if (!series) {
      const why = `${O.cluster}, ${O.jobId}, ${O.node} or ${O.step} holds U+0000`;
      this.#rejectPoint(why, cluster, jobId, node, step, timeLo, timeHi);
      return;
    }
    let entry = series.times.get(timeLo, timeHi);
    if (!entry) {
      entry = new Pending(cluster, jobId, node, step, timeLo, timeHi, containerId);
      series.times.add(entry);
      this.#entries.push(entry);
    }
    if (entry.user === undefined && user !== undefined && !user.includes("\u0000")) entry.user = user;
    if (attributes.identity(FINAL) === true) entry.final = true;
    const outcome = mapping.apply(entry.draft, value, attributes);
    if ("reject" in outcome) this.#rejectPoint(outcome.reject, cluster, jobId, node, step, timeLo, timeHi);
    else if ("skip" in outcome) this.#skipped.add(1, outcome.skip, mapping.definition.name);
    else {
      const points = entry.draft.points;
      points[outcome.section] = (points[outcome.section] ?? 0) + 1;
      if (jobId === "") {
        entry.metrics ??= {};
        const name = mapping.definition.name;
        entry.metrics[name] = (entry.metrics[name] ?? 0) + 1;
      }
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

  /** The samples (each checked against the schema), their keys and every rejection. */
  finish(): DecodedObservations {
    const { samples, accepted, hostOnly, containerOnly } = finishSamples(
      this.#entries,
      (entry, points, why) => {
        this.#rejections.add(points, why);
        // A host- or container-only sample names no job yet: its rejections are counted, not listed.
        if (entry.jobId !== "") this.#bySample.add(points, why, entry, entry.timeLo, entry.timeHi);
      },
    );
    // Keys are hashed only if someone reads them (a store with its own natural key does not).
    let keys: string[] | undefined;
    const result = {
      samples,
      rejected: this.#rejections.result,
      rejectedSamples: this.#bySample.list(),
      skipped: this.#skipped.result,
      ...(this.#unattributed.hostOnly ? { hostOnly } : {}),
      ...(this.#unattributed.containerOnly ? { containerOnly } : {}),
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
