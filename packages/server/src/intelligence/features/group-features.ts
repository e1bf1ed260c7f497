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
  "user_running",
  "log_since_user_submit",
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
  "log_since_end",
  "by_scale",
  "by_request",
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

type Context = { now: number; halfLife: number; logRequest: number; logScale: number };

const scratch = new Float64Array(1024);
const sortedScratch = new Float64Array(1024);
const weights = new Float64Array(1024);
const order = new Int32Array(1024);
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
  out[offset + 8] = Math.log1p(Math.max(0, ctx.now - g.lastEnd));
  if (n === 0) return;
  let sum = 0;
  let sumSq = 0;
  let max3 = Number.NEGATIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < n; k++) {
    const v = g.values[g.recentIndex(k)];
    scratch[k] = v;
    sum += v;
    sumSq += v * v;
    if (k < 3) max3 = Math.max(max3, v);
    max = Math.max(max, v);
  }
  out[offset + 1] = scratch[0];
  out[offset + 2] = max3;
  out[offset + 3] = max;
  const mean = sum / n;
  out[offset + 6] = Math.sqrt(Math.max(0, sumSq / n - mean * mean));
  sortedScratch.set(scratch.subarray(0, n));
  sortPrefix(sortedScratch, n);
  out[offset + 4] = sortedScratch[(n - 1) >> 1];
  out[offset + 5] = decayedP90(g, n, ctx);
  out[offset + 9] = medianDiff(g, n, g.scales, ctx.logScale);
  out[offset + 10] = medianDiff(g, n, g.requests, ctx.logRequest);
}

function decayedP90(g: GroupHistory, n: number, ctx: Context): number {
  let total = 0;
  for (let k = 0; k < n; k++) {
    const i = g.recentIndex(k);
    scratch[k] = g.values[i];
    weights[k] = 2 ** (-(ctx.now - g.ends[i]) / ctx.halfLife);
    total += weights[k];
  }
  if (!(total > 0)) {
    // Everything is so old that the weights underflow: the ranks still order by age.
    for (let k = 0; k < n; k++) weights[k] = 2 ** -k;
    total = 0;
    for (let k = 0; k < n; k++) total += weights[k];
  }
  for (let k = 0; k < n; k++) {
    const v = scratch[k];
    let j = k - 1;
    while (j >= 0 && scratch[order[j]] > v) {
      order[j + 1] = order[j];
      j--;
    }
    order[j + 1] = k;
  }
  let acc = 0;
  for (let r = 0; r < n; r++) {
    acc += weights[order[r]];
    if (acc >= 0.9 * total) return scratch[order[r]];
  }
  return scratch[order[n - 1]];
}

/** Current `base` plus the group's median of (value − base): "same ratio as usual". */
function medianDiff(g: GroupHistory, n: number, bases: Float64Array, current: number): number {
  if (Number.isNaN(current)) return Number.NaN;
  let m = 0;
  for (let k = 0; k < n; k++) {
    const i = g.recentIndex(k);
    const b = bases[i];
    if (!Number.isNaN(b)) diffs[m++] = g.values[i] - b;
  }
  if (m === 0) return Number.NaN;
  sortPrefix(diffs, m);
  return current + diffs[(m - 1) >> 1];
}
