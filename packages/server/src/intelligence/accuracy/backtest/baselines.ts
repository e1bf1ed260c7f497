import { groupKeys } from "../../features/group-keys.js";
import { replayInSubmitOrder } from "../../features/replay.js";
import type { HistoryJob } from "../../history-job.js";
import type { ResourceSpec } from "../../resources.js";

/** Options of {@link vpaBaseline}. */
export type VpaBaselineOptions = {
  /** @default 0.9 */
  percentile?: number;
  /** @default 1.15 */
  margin?: number;
  /** @default 86400 */
  halfLifeSeconds?: number;
  /** @default 3 */
  minJobs?: number;
};

/** A group's usage values sorted ascending, with their end times; stale ones pruned in batches. */
type Decayed = {
  values: number[];
  weights: number[];
  ends: number[];
  count: number;
  newest: number;
  ref: number;
  total: number;
  stale: number;
};

/**
 * The VPA-style reference of EVALUATION.md: per (user, executable) group falling back to the user,
 * `margin ×` the decaying-weight percentile of the completed jobs' usage (24 h half-life), nothing
 * under `minJobs` past jobs. Returns one value per job (NaN: no prediction).
 *
 * @example
 * ```ts
 * const vpa = vpaBaseline(jobs, resourceSpec("memory"));
 * ```
 */
export function vpaBaseline(
  jobs: readonly HistoryJob[],
  spec: ResourceSpec,
  options: VpaBaselineOptions = {},
) {
  const q = options.percentile ?? 0.9;
  const margin = options.margin ?? 1.15;
  const h = options.halfLifeSeconds ?? 86_400;
  const minJobs = options.minJobs ?? 3;
  // Weights below 2^-40 of the newest are below float noise in the percentile.
  const horizon = 40 * h;
  const groups = new Map<string, Decayed>();
  const out = new Float64Array(jobs.length).fill(Number.NaN);
  const add = (key: string, v: number, end: number) => {
    let g = groups.get(key);
    if (!g) {
      g = { values: [], weights: [], ends: [], count: 0, newest: end, ref: end, total: 0, stale: 0 };
      groups.set(key, g);
    }
    let lo = 0;
    let hi = g.values.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (g.values[mid] <= v) lo = mid + 1;
      else hi = mid;
    }
    // Weights grow with end time from a per-group reference instead of decaying with age: the
    // percentile only needs their ratios, and this keeps a query free of exponentials.
    const w = 2 ** ((end - g.ref) / h);
    g.values.splice(lo, 0, v);
    g.weights.splice(lo, 0, w);
    g.ends.splice(lo, 0, end);
    g.total += w;
    g.count++;
    // Jobs arrive in end order, so the newest is this one.
    g.newest = end;
    if ((g.values.length > 256 && ++g.stale > 256) || end - g.ref > 500 * h) {
      g.stale = 0;
      const keep = g.ends.map((e) => e >= g.newest - horizon);
      const scale = 2 ** ((g.ref - g.newest) / h);
      g.ref = g.newest;
      g.values = g.values.filter((_, i) => keep[i]);
      g.weights = g.weights.filter((_, i) => keep[i]).map((x) => x * scale);
      g.ends = g.ends.filter((_, i) => keep[i]);
      g.total = g.weights.reduce((a, b) => a + b, 0);
    }
  };
  replayInSubmitOrder(
    jobs,
    (job) => {
      const v = spec.target(job);
      if (v === undefined || job.outcome !== "completed") return;
      const k = groupKeys(job);
      add(k.app, v, job.endTime);
      add(k.user, v, job.endTime);
    },
    (job, i) => {
      const k = groupKeys(job);
      const g = [groups.get(k.app), groups.get(k.user)].find((x) => x !== undefined && x.count >= minJobs);
      if (g) out[i] = margin * decayedPercentile(g, q);
    },
  );
  return out;
}

function decayedPercentile(g: Decayed, q: number): number {
  const n = g.values.length;
  let acc = 0;
  const goal = q * g.total * (1 - 1e-12);
  for (let i = 0; i < n; i++) {
    acc += g.weights[i];
    if (acc >= goal) return g.values[i];
  }
  return g.values[n - 1];
}
