/**
 * The unit a quantity was written in: `n` of it are `n · 2^two · 10^ten`, spelled `${n}${suffix}`.
 * Kept apart from the amount so that a new amount can be written the way the user wrote the old one.
 */
export type QuantityUnit = { suffix: string; two: number; ten: number };

const BINARY_POWERS: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_POWERS: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

// <signedNumber><suffix>, suffix binary (Ki…Ei), decimal (n u m "" k M G T P E) or an exponent.
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

/**
 * `n` units as a number. Powers of ten are applied by one multiplication or one division of exact
 * operands, so the result is the double nearest the decimal value: `9m` is 0.009, not
 * 0.009000000000000001 as `9 * 1e-3` would give.
 */
function amountOf(n: number, unit: QuantityUnit): number {
  const binary = n * 2 ** unit.two;
  return unit.ten >= 0 ? binary * 10 ** unit.ten : binary / 10 ** -unit.ten;
}

/** How many of `unit` make `amount` (a fraction when it is not whole). */
export function countIn(amount: number, unit: QuantityUnit): number {
  const binary = amount / 2 ** unit.two;
  return unit.ten >= 0 ? binary / 10 ** unit.ten : binary * 10 ** -unit.ten;
}

/** A quantity's text read into its amount and the unit it is written in; undefined when it is not one. */
export function readQuantity(text: string): { amount: number; unit: QuantityUnit } | undefined {
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const [whole, fraction = ""] = m[2].split(".");
  const suffix = m[4] !== undefined ? text.slice(m[1].length + m[2].length) : (m[3] ?? "");
  const unit: QuantityUnit = {
    suffix,
    two: BINARY_POWERS[suffix] ?? 0,
    ten: m[4] !== undefined ? Number(m[4]) : (DECIMAL_POWERS[suffix] ?? 0),
  };
  // The digits as one integer and the decimal point folded into the power of ten, so that `1.5Gi`
  // and `0.1k` are exact: 15 · 2^30 / 10 and 1 · 10^2.
  const digits = Number(`${whole}${fraction}`);
  const amount = amountOf(digits, { ...unit, ten: unit.ten - fraction.length }) + 0;
  if (!Number.isFinite(amount) || (m[1] === "-" && amount !== 0)) return undefined;
  return { amount, unit };
}

/**
 * Parse a Kubernetes resource quantity (`128974848`, `129e6`, `129M`, `123Mi`, `500m`, `1.5`) into
 * a plain number: bytes for memory, cores for CPU, devices for GPUs. Undefined when it is not one:
 * templated values such as `{{inputs.parameters.mem}}`, negative or infinite amounts, anything that
 * is not a string or a number. The collector, the server's admission webhook and the SDK's manifest
 * editing all read quantities with this one function, so they cannot disagree on a request.
 *
 * @example
 * ```ts
 * parseQuantity("1Gi"); // 1073741824
 * parseQuantity("250m"); // 0.25
 * parseQuantity("{{mem}}"); // undefined
 * ```
 */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value + 0 : undefined;
  if (typeof value !== "string") return undefined;
  return readQuantity(value.trim())?.amount;
}
