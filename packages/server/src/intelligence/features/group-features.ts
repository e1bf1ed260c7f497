import type { GroupHistory } from "./group-history.js";
import { GROUP_LEVELS, type GroupLevel } from "./group-keys.js";

const GLOBAL_FEATURES = [
  "log_request",
  "log_scale",
  "log_req_cores",
  "log_req_walltime",
  "log_req_memory",
  "queue",
  "partition",
];

const PER_GROUP = [
  "count",
  "last",
  "max3",
  "max",
  "median",
  "decayed_p90",
  "std",
  "censored_max",
  "by_scale",
  "by_request",
  "max_by_request",
];

/** Names of the feature columns, in order. */
export const FEATURE_NAMES: string[] = [
  ...GLOBAL_FEATURES,
  ...GROUP_LEVELS.flatMap((level) => PER_GROUP.map((f) => `${level}_${f}`)),
];

/** Column of the first feature of a group level. */
export function groupFeatureOffset(level: GroupLevel): number {
  return GLOBAL_FEATURES.length + GROUP_LEVELS.indexOf(level) * PER_GROUP.length;
}

/** Column of a named per-group feature. */
export function groupFeatureIndex(level: GroupLevel, name: (typeof PER_GROUP)[number]): number {
  return groupFeatureOffset(level) + PER_GROUP.indexOf(name);
}

type Context = { halfLife: number; logRequest: number; logScale: number };

const scratch = new Float64Array(1024);
const weights = new Float64Array(1024);
const diffs = new Float64Array(1024);

/** Insertion sort of a short prefix; groups hold a few dozen values, where it beats Array#sort. */
function sortPrefix(a: Float64Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const v = a[i];
    let j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
}

/** What a group's features need that does not depend on the job asking: kept until it changes. */
type GroupStats = {
  count: number;
  last: number;
  max3: number;
  max: number;
  std: number;
  median: number;
  /** Recency ranks (0 = newest) in ascending order of value; ties keep newer first. */
  ranks: Int32Array;
  medianDiffScale: number;
  medianDiffRequest: number;
  maxDiffRequest: number;
  /** The last decayed P90 and the moment and half-life it was weighed for. */
  p90: number;
  p90HalfLife: number;
};

// Prediction asks the same groups again and again between history updates; training adds a job
// between asks, so there the cache simply misses. Keyed by `count`, which every addExact bumps.
const statsCache = new WeakMap<GroupHistory, GroupStats>();

function statsOf(g: GroupHistory, n: number): GroupStats {
  const cached = statsCache.get(g);
  if (cached && cached.count === g.count) return cached;
  let sum = 0;
  let sumSq = 0;
  let max3 = Number.NEGATIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  const ranks = cached && cached.ranks.length >= n ? cached.ranks : new Int32Array(g.values.length);
  for (let k = 0; k < n; k++) {
    const v = g.values[g.recentIndex(k)];
    scratch[k] = v;
    sum += v;
    sumSq += v * v;
    if (k < 3) max3 = Math.max(max3, v);
    max = Math.max(max, v);
    // Insertion by value, stable: an equal older value goes after the newer ones.
    let j = k - 1;
    while (j >= 0 && scratch[ranks[j]] > v) {
      ranks[j + 1] = ranks[j];
      j--;
    }
    ranks[j + 1] = k;
  }
  const mean = sum / n;
  const stats: GroupStats = {
    count: g.count,
    last: scratch[0],
    max3,
    max,
    std: Math.sqrt(Math.max(0, sumSq / n - mean * mean)),
    median: scratch[ranks[(n - 1) >> 1]],
    ranks,
    medianDiffScale: medianOfDiffs(g, n, g.scales),
    medianDiffRequest: medianOfDiffs(g, n, g.requests),
    maxDiffRequest: maxOfDiffs(g, n, g.requests),
    p90: Number.NaN,
    p90HalfLife: Number.NaN,
  };
  statsCache.set(g, stats);
  return stats;
}

/** Writes the statistics of one group (all NaN when the group has no history) at `offset`. */
export function writeGroupFeatures(
  out: Float32Array,
  offset: number,
  g: GroupHistory | undefined,
  ctx: Context,
) {
  const n = g ? g.size : 0;
  out[offset] = Math.log1p(g ? g.count : 0);
  for (let i = 1; i < PER_GROUP.length; i++) out[offset + i] = Number.NaN;
  if (!g) return;
  if (g.censoredSize > 0) {
    let cmax = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < g.censoredSize; i++) cmax = Math.max(cmax, g.censored[i]);
    out[offset + 7] = cmax;
  }
  if (n === 0) return;
  const stats = statsOf(g, n);
  out[offset + 1] = stats.last;
  out[offset + 2] = stats.max3;
  out[offset + 3] = stats.max;
  out[offset + 6] = stats.std;
  out[offset + 4] = stats.median;
  // Independent of the moment asked: computed once per group state (and half-life).
  if (stats.p90HalfLife !== ctx.halfLife) {
    stats.p90 = decayedP90(g, n, stats.ranks, ctx.halfLife);
    stats.p90HalfLife = ctx.halfLife;
  }
  out[offset + 5] = stats.p90;
  out[offset + 8] = Number.isNaN(ctx.logScale) ? Number.NaN : ctx.logScale + stats.medianDiffScale;
  const logReq = ctx.logRequest;
  out[offset + 9] = Number.isNaN(logReq) ? Number.NaN : logReq + stats.medianDiffRequest;
  // The most the group's jobs used beyond their own request: 0 or below where requests held.
  out[offset + 10] = Number.isNaN(logReq) ? Number.NaN : logReq + stats.maxDiffRequest;
}

/**
 * The 90th percentile of the group's values, each weighed by `2^(-age / halfLife)`. Only the
 * weights' ratios matter to a quantile, so ages are counted from the group's newest value rather
 * than from the moment asked: the same number at every moment (computed once per group state),
 * and never all weights underflowing to zero, however long ago the group last ran.
 */
function decayedP90(g: GroupHistory, n: number, ranks: Int32Array, halfLife: number): number {
  let newest = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < n; k++) newest = Math.max(newest, g.ends[g.recentIndex(k)]);
  let total = 0;
  for (let k = 0; k < n; k++) {
    weights[k] = 2 ** (-(newest - g.ends[g.recentIndex(k)]) / halfLife);
    total += weights[k];
  }
  let acc = 0;
  for (let r = 0; r < n; r++) {
    acc += weights[ranks[r]];
    if (acc >= 0.9 * total) return g.values[g.recentIndex(ranks[r])];
  }
  return g.values[g.recentIndex(ranks[n - 1])];
}

function maxOfDiffs(g: GroupHistory, n: number, bases: Float64Array): number {
  let max = Number.NaN;
  for (let k = 0; k < n; k++) {
    const i = g.recentIndex(k);
    const d = g.values[i] - bases[i];
    if (!Number.isNaN(d) && !(d <= max)) max = d;
  }
  return max;
}

function medianOfDiffs(g: GroupHistory, n: number, bases: Float64Array): number {
  let m = 0;
  for (let k = 0; k < n; k++) {
    const i = g.recentIndex(k);
    const b = bases[i];
    if (!Number.isNaN(b)) diffs[m++] = g.values[i] - b;
  }
  if (m === 0) return Number.NaN;
  sortPrefix(diffs, m);
  return diffs[(m - 1) >> 1];
}
