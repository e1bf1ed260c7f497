import type { AnyValue, KeyValue } from "../otlp/otlp-types.js";

/** A scalar attribute value. */
export type ScalarAttribute = string | number | boolean;

/**
 * The scalar behind an AnyValue: strings, booleans, doubles, and integers as numbers (an
 * int64 beyond 2^53 stays exact only as a decimal string). Arrays, kvlists, bytes and empty
 * values have no scalar and give `undefined`.
 *
 * @example
 * ```ts
 * scalarOf({ intValue: 3n }); // 3
 * ```
 */
export function scalarOf(value: AnyValue): ScalarAttribute | undefined {
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("doubleValue" in value) return value.doubleValue;
  if ("intValue" in value) {
    const n = Number(value.intValue);
    return Number.isSafeInteger(n) ? n : value.intValue.toString();
  }
  return undefined;
}

/** Integers go out as `intValue`, other numbers as `doubleValue`, like the OpenTelemetry SDK does. */
export function anyValueOf(value: ScalarAttribute): AnyValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  return Number.isInteger(value) ? { intValue: BigInt(value) } : { doubleValue: value };
}

/** Adds `list`'s scalar attributes to `into`, later keys overriding earlier ones. */
export function mergeAttributes(
  into: Map<string, ScalarAttribute>,
  list: readonly KeyValue[] | undefined,
): void {
  if (!list) return;
  for (const kv of list) {
    const scalar = scalarOf(kv.value);
    if (scalar !== undefined) into.set(kv.key, scalar);
  }
}

/** A KeyValue list from `[key, value]` pairs. */
export function keyValues(pairs: Iterable<readonly [string, ScalarAttribute]>): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [key, value] of pairs) out.push({ key, value: anyValueOf(value) });
  return out;
}
