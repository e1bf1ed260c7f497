const SUFFIXES: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

// <signedNumber><suffix>, suffix binary (Ki…Ei), decimal (n u m "" k M G T P E) or an exponent.
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

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
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== "string") return undefined;
  const m = QUANTITY.exec(value.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  const n = m[3] !== undefined ? base * 10 ** Number(m[3]) : base * SUFFIXES[m[2] ?? ""];
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
