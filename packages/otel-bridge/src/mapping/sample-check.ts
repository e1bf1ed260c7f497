import { compileValidator, UsageSample, type ValidationResult, validateUsageSample } from "@jobsight/schemas";

type SchemaNode = { [key: string | symbol]: unknown };

/** A deep copy of a TypeBox schema without `additionalProperties: false` (its symbols kept). */
function withoutClosedObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutClosedObjects);
  if (node === null || typeof node !== "object") return node;
  const copy: SchemaNode = {};
  for (const key of Object.keys(node)) {
    if (key === "$id" || (key === "additionalProperties" && (node as SchemaNode)[key] === false)) continue;
    copy[key] = withoutClosedObjects((node as SchemaNode)[key]);
  }
  for (const symbol of Object.getOwnPropertySymbols(node)) copy[symbol] = (node as SchemaNode)[symbol];
  return copy;
}

// The decoder builds every object of a sample itself, from the mapping's own field names, so no
// object can hold a property the schema does not name; listing each object's keys to prove it
// again was a fifth of what decoding allocates. Everything else (types, ranges, lengths, formats,
// required fields) is checked as always.
const builtSample = compileValidator(withoutClosedObjects(UsageSample) as typeof UsageSample, "UsageSample");

/**
 * `validateUsageSample` of a sample the decoder built: the same answer, cheaper when the sample
 * is valid; the full validator says what is wrong when it is not.
 *
 * @example
 * ```ts
 * const checked = checkBuiltSample(sample);
 * if (!checked.ok) console.log(checked.errors[0].path);
 * ```
 */
export function checkBuiltSample(sample: UsageSample): ValidationResult<UsageSample> {
  return builtSample.check(sample) ? { ok: true, value: sample } : validateUsageSample(sample);
}
