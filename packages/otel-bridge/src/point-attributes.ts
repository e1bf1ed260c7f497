import { type ScalarAttribute, scalarOf } from "./attribute-values.js";
import type { KeyValue } from "./otlp-types.js";

/** Looks attributes up by key; what the observation mappings need of an attribute set. */
export interface AttributeLookup {
  get(key: string): ScalarAttribute | undefined;
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
export class PointAttributes implements AttributeLookup {
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
}

/**
 * Attributes read straight from protobuf into reused arrays (no KeyValue objects), over the
 * scope's and resource's: the lookup the protobuf decoder gives the mappings. Like
 * {@link PointAttributes}, the last scalar of a key wins, and an instance is reused point after
 * point.
 */
export class ScratchAttributes implements AttributeLookup {
  readonly keys: string[] = [];
  readonly values: (ScalarAttribute | undefined)[] = [];
  length = 0;
  outer: ReadonlyMap<string, ScalarAttribute> = new Map();

  add(key: string, value: ScalarAttribute | undefined): void {
    this.keys[this.length] = key;
    this.values[this.length] = value;
    this.length++;
  }

  get(key: string): ScalarAttribute | undefined {
    for (let i = this.length - 1; i >= 0; i--) {
      if (this.keys[i] === key && this.values[i] !== undefined) return this.values[i];
    }
    return this.outer.get(key);
  }
}
