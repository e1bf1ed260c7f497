/**
 * Whether the cluster enforces the request of a resource, judged from completed jobs: if almost none
 * ran past their request (beyond a 5% grace), the limit is enforced and a recommendation above the
 * request is pointless (the job would be killed at the request anyway).
 *
 * @example
 * ```ts
 * detectEnforcedLimit(logUsage, logRequest, censored, indices); // true on a SLURM walltime log
 * ```
 */
export function detectEnforcedLimit(
  y: Float64Array,
  logRequest: Float64Array,
  censored: Uint8Array,
  indices: ArrayLike<number>,
  tolerance = 0.005,
): boolean {
  const grace = Math.log(1.05);
  let n = 0;
  let over = 0;
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k];
    if (censored[i] || Number.isNaN(y[i]) || Number.isNaN(logRequest[i])) continue;
    n++;
    if (y[i] > logRequest[i] + grace) over++;
  }
  return n >= 100 && over / n <= tolerance;
}
