/**
 * Units a standard input may arrive in, per unit Jobsight stores (UCUM, as the semantic
 * conventions write them), and the factor to the stored one. An empty unit is taken to be the
 * convention's: the Prometheus receiver and some SDKs leave it out.
 */
const FACTORS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  By: { By: 1, "": 1, KiBy: 2 ** 10, MiBy: 2 ** 20, GiBy: 2 ** 30, kBy: 1e3, MBy: 1e6, GBy: 1e9 },
  s: { s: 1, "": 1, ms: 1e-3, us: 1e-6, ns: 1e-9, min: 60 },
  "1": { "1": 1, "": 1, "%": 0.01 },
  "{thread}": { "{thread}": 1, "": 1, "1": 1, "{threads}": 1 },
};

/**
 * The factor that turns a value sent in `sent` into `expected`, or undefined when the two do
 * not measure the same thing (a `By` metric sent in `s`).
 *
 * @example
 * ```ts
 * unitFactor("By", "MiBy"); // 1048576
 * unitFactor("By", "s"); // undefined
 * ```
 */
export function unitFactor(expected: string, sent: string): number | undefined {
  return FACTORS[expected]?.[sent];
}

/** Applies a unit factor to an integer field: exact powers of two stay integers, decimal ones are rounded. */
export function scaled(value: number, factor: number, integer: boolean): number {
  if (factor === 1) return value;
  const v = value * factor;
  return integer ? Math.round(v) : v;
}
