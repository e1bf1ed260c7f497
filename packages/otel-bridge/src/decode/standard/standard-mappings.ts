import type { ObservationMapping } from "../../mapping/observation-mapping.js";
import { OtlpAggregationTemporality } from "../../otlp/otlp-types.js";
import { type StandardInput, standardDefinition, standardInputs } from "./standard-inputs.js";
import { scaled, unitFactor } from "./standard-units.js";

/** The mapping of a standard input as sent: its unit converted; its job found from resource attributes. */
export interface StandardMapping extends ObservationMapping {
  standard: StandardInput;
}

const inputsByName = new Map(standardInputs.map((i) => [i.name, i]));
// One mapping per (name, unit, temporality) a sender uses: a handful per deployment, bounded so
// a sender inventing units cannot grow it.
const cache = new Map<string, StandardMapping>();
const MAX_CACHED = 256;

function refusing(input: StandardInput, why: string): StandardMapping {
  const reject = { reject: `${input.name}: ${why}` };
  return { standard: input, definition: standardDefinition(input), extract: () => [], apply: () => reject };
}

function make(input: StandardInput, unit: string, temporality: number | undefined): StandardMapping {
  if (input.instrument === "counter" && temporality === OtlpAggregationTemporality.DELTA) {
    return refusing(input, "delta temporality; send cumulative sums");
  }
  const factor = unitFactor(input.unit, unit);
  if (factor === undefined) return refusing(input, `unit ${JSON.stringify(unit)} is not ${input.unit}`);
  const definition = standardDefinition(input);
  const integer = definition.valueType === "int";
  const apply = input.apply;
  return {
    standard: input,
    definition,
    extract: () => [],
    apply:
      factor === 1
        ? apply
        : (draft, value, attributes) => apply(draft, scaled(value, factor, integer), attributes),
  };
}

/**
 * Whether `name` is a standard input at all (so a decoder reads its temporality before its points).
 *
 * @example
 * ```ts
 * isStandardInput("container.cpu.time"); // true
 * ```
 */
export function isStandardInput(name: string): boolean {
  return inputsByName.has(name);
}

/**
 * The mapping of a standard input sent in `unit` (`temporality` for a Sum); one that refuses
 * every point when the unit or temporality cannot be used; `undefined` for any other metric.
 *
 * @example
 * ```ts
 * standardMapping("process.memory.usage", "MiBy")?.definition.source; // "memory.currentBytes"
 * ```
 */
export function standardMapping(
  name: string,
  unit: string,
  temporality?: number,
): StandardMapping | undefined {
  const input = inputsByName.get(name);
  if (!input) return undefined;
  const key = `${name}\u0000${unit}\u0000${temporality ?? ""}`;
  let mapping = cache.get(key);
  if (!mapping) {
    mapping = make(input, unit, temporality);
    if (cache.size < MAX_CACHED) cache.set(key, mapping);
  }
  return mapping;
}
