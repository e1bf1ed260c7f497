// Reading quantities is `parseQuantity` of @jobsight/schemas, shared with the collector and the server.

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
