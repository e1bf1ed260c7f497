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
const weights = new Float64Array(1024);
const order: number[] = [];

/** Writes the statistics of one group (all NaN when the group has no history) at `offset`. */
export function writeGroupFeatures(out: Float32Array, offset: number, g: GroupHistory | undefined, ctx: Context) {
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
  const sorted = Array.from(scratch.subarray(0, n)).sort((a, b) => a - b);
  out[offset + 4] = sorted[(n - 1) >> 1];
  out[offset + 5] = decayedP90(g, n, ctx);
  out[offset + 9] = medianDiff(g, n, g.scales, ctx.logScale);
  out[offset + 10] = medianDiff(g, n, g.requests, ctx.logRequest);
}

function decayedP90(g: GroupHistory, n: number, ctx: Context): number {
  let total = 0;
  order.length = 0;
  for (let k = 0; k < n; k++) {
    const i = g.recentIndex(k);
    scratch[k] = g.values[i];
    weights[k] = 2 ** (-(ctx.now - g.ends[i]) / ctx.halfLife + 0);
    total += weights[k];
    order.push(k);
  }
  if (!(total > 0)) {
    // Everything is so old that the weights underflow: the ranks still order by age.
    for (let k = 0; k < n; k++) weights[k] = 2 ** (-k);
    total = 0;
    for (let k = 0; k < n; k++) total += weights[k];
  }
  order.sort((a, b) => scratch[a] - scratch[b]);
  let acc = 0;
  for (const k of order) {
    acc += weights[k];
    if (acc >= 0.9 * total) return scratch[k];
  }
  return scratch[order[order.length - 1]];
}

/** Current `base` plus the group's median of (value − base): "same ratio as usual". */
function medianDiff(g: GroupHistory, n: number, bases: Float64Array, current: number): number {
  if (Number.isNaN(current)) return Number.NaN;
  const diffs: number[] = [];
  for (let k = 0; k < n; k++) {
    const i = g.recentIndex(k);
    const b = bases[i];
    if (!Number.isNaN(b)) diffs.push(g.values[i] - b);
  }
  if (diffs.length === 0) return Number.NaN;
  diffs.sort((a, b) => a - b);
  return current + diffs[(diffs.length - 1) >> 1];
}
