import { groupKeys } from "../features/group-keys.js";
import { replayInSubmitOrder } from "../features/replay.js";
import type { HistoryJob } from "../history-job.js";
import type { ResourceSpec } from "../resources.js";

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

type Decayed = { values: number[]; ends: number[]; count: number };

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
export function vpaBaseline(jobs: readonly HistoryJob[], spec: ResourceSpec, options: VpaBaselineOptions = {}) {
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
      g = { values: [], ends: [], count: 0 };
      groups.set(key, g);
    }
    g.values.push(v);
    g.ends.push(end);
    g.count++;
    // Jobs arrive in end order, so the newest is this one.
    const newest = end;
    let drop = 0;
    while (drop < g.ends.length - 1 && g.ends[drop] < newest - horizon) drop++;
    if (drop > 64) {
      g.values.splice(0, drop);
      g.ends.splice(0, drop);
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
      if (g) out[i] = margin * decayedPercentile(g, q, h);
    },
  );
  return out;
}

function decayedPercentile(g: Decayed, q: number, h: number): number {
  let newest = Number.NEGATIVE_INFINITY;
  for (const e of g.ends) newest = Math.max(newest, e);
  const idx: number[] = [];
  const w: number[] = [];
  let total = 0;
  for (let i = 0; i < g.values.length; i++) {
    const wi = 2 ** ((g.ends[i] - newest) / h);
    w.push(wi);
    total += wi;
    idx.push(i);
  }
  idx.sort((a, b) => g.values[a] - g.values[b]);
  let acc = 0;
  for (const i of idx) {
    acc += w[i];
    if (acc >= q * total * (1 - 1e-12)) return g.values[i];
  }
  return g.values[idx[idx.length - 1]];
}
