/**
 * Quantile of already-sorted values by the "higher" order statistic (`ceil(q·n)`-th), which is what
 * a conformal bound needs to keep its coverage promise.
 *
 * @example
 * ```ts
 * upperQuantileSorted([1, 2, 3, 4], 0.5); // 2
 * ```
 */
export function upperQuantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const k = Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
  return sorted[k];
}

/** Linear-interpolated quantile of sorted values (numpy's default). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const pos = (n - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(pos);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/**
 * Weighted quantile: the smallest value whose cumulative weight reaches `q` of the total.
 * `values` and `weights` are parallel; values need not be sorted.
 *
 * @example
 * ```ts
 * weightedQuantile([1, 10], [9, 1], 0.9); // 1
 * ```
 */
export function weightedQuantile(values: ArrayLike<number>, weights: ArrayLike<number>, q: number): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a] - values[b]);
  let total = 0;
  for (let i = 0; i < n; i++) total += weights[i];
  const goal = q * total;
  let acc = 0;
  for (const i of order) {
    acc += weights[i];
    if (acc >= goal * (1 - 1e-12)) return values[i];
  }
  return values[order[n - 1]];
}
