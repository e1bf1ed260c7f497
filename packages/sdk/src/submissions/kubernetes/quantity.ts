const suffixes: Record<string, number> = {
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

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

/**
 * Parse a Kubernetes resource quantity (`128974848`, `129e6`, `129M`, `123Mi`, `1Gi`, `500m`,
 * `1.5`) into its plain number (bytes for memory, cores for CPU). Undefined when malformed.
 *
 * @example
 * ```ts
 * parseQuantity("1Gi"); // 1073741824
 * parseQuantity("250m"); // 0.25
 * ```
 */
export function parseQuantity(text: string | number): number | undefined {
  if (typeof text === "number") return Number.isFinite(text) && text >= 0 ? text : undefined;
  const m = QUANTITY.exec(text.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  const value = m[3] !== undefined ? base * 10 ** Number(m[3]) : base * suffixes[m[2] ?? ""];
  return value >= 0 ? value : undefined;
}

/**
 * Write memory the way Kubernetes manifests usually carry it: `Gi` when whole gibibytes, else
 * `Mi` rounded up.
 *
 * @example
 * ```ts
 * formatMemoryQuantity(24 * 2 ** 30); // "24Gi"
 * formatMemoryQuantity(1.5 * 2 ** 30); // "1536Mi"
 * ```
 */
export function formatMemoryQuantity(bytes: number): string {
  const mib = Math.max(1, Math.ceil(bytes / 2 ** 20));
  return mib % 1024 === 0 ? `${mib / 1024}Gi` : `${mib}Mi`;
}

/**
 * Write a CPU amount: whole cores as a plain number, fractions in millicores.
 *
 * @example
 * ```ts
 * formatCpuQuantity(4); // "4"
 * formatCpuQuantity(0.5); // "500m"
 * ```
 */
export function formatCpuQuantity(cores: number): string {
  // Rounded up to the millicore; the epsilon keeps float noise (32.38 * 1000 = 32380.000000000004) from adding one.
  const milli = Math.ceil(cores * 1000 - 1e-6);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}
