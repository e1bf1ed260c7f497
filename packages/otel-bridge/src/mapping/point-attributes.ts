import type { ProtobufReader } from "../decode/protobuf-reader.js";
import type { KeyValue } from "../otlp/otlp-types.js";
import { type ScalarAttribute, scalarOf } from "./attribute-values.js";
import { ObservationAttributes as O } from "./metric-names.js";

/** Looks attributes up by key; what the observation mappings need of an attribute set. */
export interface AttributeLookup {
  get(key: string): ScalarAttribute | undefined;
}

/** A non-negative safe integer attribute (a decimal string too); `undefined` otherwise. */
export function integerAttribute(attributes: AttributeLookup, key: string): number | undefined {
  const raw = attributes.get(key);
  // A Prometheus round trip turns every label into a string; accept decimal strings too.
  const n = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** A non-empty string attribute; `undefined` otherwise. */
export function stringAttribute(attributes: AttributeLookup, key: string): string | undefined {
  const raw = attributes.get(key);
  return typeof raw === "string" && raw !== "" ? raw : undefined;
}

/** The attributes every point is asked for, by slot (see {@link IdentityLookup}). */
export const IDENTITY_KEYS = [O.cluster, O.jobId, O.node, O.step, O.user, O.final] as const;
export const CLUSTER = 0;
export const JOB_ID = 1;
export const NODE = 2;
export const STEP = 3;
export const USER = 4;
export const FINAL = 5;

/** An {@link AttributeLookup} that also answers for the identity attributes by slot. */
export interface IdentityLookup extends AttributeLookup {
  /** The same as `get(IDENTITY_KEYS[slot])`. */
  identity(slot: number): ScalarAttribute | undefined;
}

function identitySlot(key: string): number {
  switch (key) {
    case O.jobId:
      return JOB_ID;
    case O.user:
      return USER;
    case O.step:
      return STEP;
    case O.final:
      return FINAL;
    case O.cluster:
      return CLUSTER;
    case O.node:
      return NODE;
    default:
      return -1;
  }
}

/**
 * A point's attributes over its scope's and resource's, without copying them into a new map
 * for every point: the point's own list is searched first (the last scalar of a key wins, as
 * with `mergeAttributes`), then the enclosing map. One instance is reused point after point,
 * so callers must not keep it past the point they read.
 *
 * @example
 * ```ts
 * const attributes = new PointAttributes(scopeAttributes);
 * for (const point of points) attributes.reset(point.attributes).get("jobsight.job.id");
 * ```
 */
export class PointAttributes implements IdentityLookup {
  #own: readonly KeyValue[] = [];

  constructor(private readonly outer: ReadonlyMap<string, ScalarAttribute>) {}

  reset(own: readonly KeyValue[]): this {
    this.#own = own;
    return this;
  }

  get(key: string): ScalarAttribute | undefined {
    const own = this.#own;
    for (let i = own.length - 1; i >= 0; i--) {
      if (own[i].key !== key) continue;
      const scalar = scalarOf(own[i].value);
      if (scalar !== undefined) return scalar;
    }
    return this.outer.get(key);
  }

  identity(slot: number): ScalarAttribute | undefined {
    return this.get(IDENTITY_KEYS[slot]);
  }
}

/**
 * Attributes read straight from protobuf into reused arrays (no KeyValue objects), over the
 * scope's and resource's: the lookup the protobuf decoder gives the mappings. Like
 * {@link PointAttributes}, the last scalar of a key wins, and an instance is reused point after
 * point.
 */
export class ScratchAttributes implements IdentityLookup {
  readonly keys: string[] = [];
  readonly values: (ScalarAttribute | undefined)[] = [];
  length = 0;
  #outer: ReadonlyMap<string, ScalarAttribute> = new Map();
  // Identity attributes are asked for on every point: the point's own are noted as they are
  // added, the enclosing ones once per scope, so asking costs no search.
  readonly #own: (ScalarAttribute | undefined)[] = IDENTITY_KEYS.map(() => undefined);
  // Which of #own are set, so forgetting a point costs nothing for the slots it did not set.
  #ownSet = 0;
  readonly #outerIdentity: (ScalarAttribute | undefined)[] = IDENTITY_KEYS.map(() => undefined);

  /** The scope's and resource's attributes, under the point's own. */
  set outer(outer: ReadonlyMap<string, ScalarAttribute>) {
    this.#outer = outer;
    for (let i = 0; i < IDENTITY_KEYS.length; i++) this.#outerIdentity[i] = outer.get(IDENTITY_KEYS[i]);
  }

  /** Forgets the previous point's own attributes. */
  clear(): void {
    this.length = 0;
    if (this.#ownSet === 0) return;
    for (let slot = 0; slot < IDENTITY_KEYS.length; slot++) this.#own[slot] = undefined;
    this.#ownSet = 0;
  }

  add(key: string, value: ScalarAttribute | undefined): void {
    this.keys[this.length] = key;
    this.values[this.length] = value;
    this.length++;
    if (value === undefined) return;
    const slot = identitySlot(key);
    if (slot >= 0) {
      this.#own[slot] = value;
      this.#ownSet |= 1 << slot;
    }
  }

  get(key: string): ScalarAttribute | undefined {
    for (let i = this.length - 1; i >= 0; i--) {
      if (this.keys[i] === key && this.values[i] !== undefined) return this.values[i];
    }
    return this.#outer.get(key);
  }

  identity(slot: number): ScalarAttribute | undefined {
    return this.#own[slot] ?? this.#outerIdentity[slot];
  }
}

/**
 * Reads the usual point attribute, `{key, value: {stringValue}}` with one-byte lengths, read in place
 * (no nested reader calls); `false`, having read nothing, for any other shape, which the
 * checking reader then takes. Every length is checked first, so nothing here can fail.
 */
export function readStringAttribute(
  r: ProtobufReader,
  bytes: Uint8Array,
  end: number,
  into: ScratchAttributes,
): boolean {
  const at = r.pos;
  const stop = at + 2 + bytes[at + 1];
  if (bytes[at + 1] >= 0x80 || stop > end || bytes[at + 2] !== 0x0a || bytes[at + 3] >= 0x80) return false;
  const keyEnd = at + 4 + bytes[at + 3];
  if (keyEnd + 4 > stop || bytes[keyEnd] !== 0x12 || keyEnd + 2 + bytes[keyEnd + 1] !== stop) return false;
  if (bytes[keyEnd + 2] !== 0x0a || keyEnd + 4 + bytes[keyEnd + 3] !== stop) return false;
  r.pos = at + 3;
  const key = r.string(keyEnd);
  r.pos = keyEnd + 3;
  const value = r.string(stop);
  into.add(key, value);
  return true;
}
