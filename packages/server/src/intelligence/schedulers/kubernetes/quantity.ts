// Reading quantities is `parseQuantity` of @jobsight/schemas, shared with the collector and the SDK.

/**
 * Memory as manifests usually carry it: `Gi` or `Mi` when whole, else plain bytes (rounded up).
 *
 * @example
 * ```ts
 * formatMemoryQuantity(24 * 2 ** 30); // "24Gi"
 * formatMemoryQuantity(1536 * 2 ** 20); // "1536Mi"
 * ```
 */
export function formatMemoryQuantity(bytes: number): string {
  const whole = Math.ceil(bytes);
  if (whole > 0 && whole % 2 ** 30 === 0) return `${whole / 2 ** 30}Gi`;
  if (whole > 0 && whole % 2 ** 20 === 0) return `${whole / 2 ** 20}Mi`;
  return String(whole);
}

/**
 * CPU as whole cores, or millicores for fractions (rounded up to the millicore Kubernetes keeps).
 *
 * @example
 * ```ts
 * formatCpuQuantity(4); // "4"
 * formatCpuQuantity(0.25); // "250m"
 * ```
 */
export function formatCpuQuantity(cores: number): string {
  const milli = Math.ceil(Math.round(cores * 1e6) / 1e3);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}
