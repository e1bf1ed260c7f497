import { quantileSorted } from "../stats/quantiles.js";
import {
  applyConformal,
  type CalibrationExample,
  type ConformalResult,
  type ConformalTable,
  excessOf,
  type GroupFallback,
  type GroupFallbackBand,
} from "./conformal-table.js";

/** Fewest abstained calibration jobs with a group record before the record is calibrated. */
export const GROUP_FALLBACK_MIN_JOBS = 100;

/** Most bands of group spread the margins are fitted over (each needs the fewest jobs above). */
const MAX_SPREAD_BANDS = 4;

type Scored = { z: number; spread: number };

/**
 * Fits the fallback on the calibration jobs the fitted `table` abstains on and whose group has a
 * record: the upper margin is their finite-sample conformal quantile of `y − group` at the table's
 * miss rate, the low margin the quantile at the range's miss; and the same per band of the groups'
 * spread, where there are jobs enough for two bands or more. Undefined with too few such jobs.
 *
 * @example
 * ```ts
 * table.groupFallback = fitGroupFallback(table, examples, 0.01);
 * ```
 */
export function fitGroupFallback(
  table: ConformalTable,
  examples: CalibrationExample[],
  rangeMiss: number,
): GroupFallback | undefined {
  const scored: Scored[] = [];
  for (const e of examples) {
    if (e.group === undefined || !Number.isFinite(e.group)) continue;
    const r = applyConformal(table, e.m, e.s, e.logRequest, true, e.need, e.held);
    if (r.tooUncertain) scored.push({ z: e.y - e.group, spread: e.groupSpread ?? Number.NaN });
  }
  if (scored.length < GROUP_FALLBACK_MIN_JOBS) return undefined;
  const all = fitBand(
    scored.map((s) => s.z),
    table.missRate,
    rangeMiss,
  );
  const bySpread = fitSpreadBands(
    scored.filter((s) => Number.isFinite(s.spread)),
    table.missRate,
    rangeMiss,
  );
  return bySpread ? { ...all, bySpread } : all;
}

/** Bands of equal counts by spread, a band with fewer than the fewest jobs joined to the one below. */
function fitSpreadBands(
  scored: Scored[],
  missRate: number,
  rangeMiss: number,
): GroupFallback["bySpread"] | undefined {
  const k = Math.min(MAX_SPREAD_BANDS, Math.floor(scored.length / GROUP_FALLBACK_MIN_JOBS));
  if (k < 2) return undefined;
  scored.sort((a, b) => a.spread - b.spread);
  const groups: Scored[][] = [];
  const edges: number[] = [];
  let from = 0;
  for (let b = 1; b <= k && from < scored.length; b++) {
    let to = b === k ? scored.length : Math.round((b * scored.length) / k);
    // Equal spreads stay in one band, so a job's band follows from its spread alone.
    while (to < scored.length && scored[to].spread === scored[to - 1].spread) to++;
    if (to - from < GROUP_FALLBACK_MIN_JOBS && groups.length > 0) {
      groups[groups.length - 1].push(...scored.slice(from, to));
      edges[edges.length - 1] = scored[to - 1].spread;
    } else {
      groups.push(scored.slice(from, to));
      edges.push(scored[to - 1].spread);
    }
    from = to;
  }
  if (groups.length < 2) return undefined;
  edges.pop();
  return {
    edges,
    bands: groups.map((g) =>
      fitBand(
        g.map((s) => s.z),
        missRate,
        rangeMiss,
      ),
    ),
  };
}

/** Margins at the miss rate and the range's, the measured share inside, and the median of `scores`. */
export function fitBand(scores: number[], missRate: number, rangeMiss: number): GroupFallbackBand {
  const n = scores.length;
  const sorted = Float64Array.from(scores).sort();
  const rank = Math.min(n, Math.ceil((1 - missRate) * (n + 1) - 1e-9));
  const upper = sorted[rank - 1];
  const low = quantileSorted(sorted, rangeMiss);
  let inside = 0;
  for (const z of sorted) if (z >= low && z <= upper) inside++;
  return { upper, low, confidence: inside / n, n, centre: quantileSorted(sorted, 0.5) };
}

/** The band of a job's group spread; the pooled margins where it is unknown or none were fitted. */
function bandOf(f: GroupFallback, spread: number): GroupFallbackBand {
  if (!f.bySpread || !Number.isFinite(spread)) return f;
  const { edges, bands } = f.bySpread;
  let i = 0;
  while (i < edges.length && spread > edges[i]) i++;
  return bands[i];
}

/**
 * The group's calibrated value for a job the model abstained on: its group's recent largest use
 * plus the margin of its spread's band, never below the recent-need floor, at most the request where limits are
 * enforced; undefined (still abstaining) without a fitted fallback or a group record, or when that
 * value would be as wasteful as the abstention threshold forbids.
 *
 * @example
 * ```ts
 * const r = applyConformal(table, m, s, logRequest, true, need);
 * const value = r.tooUncertain ? applyGroupFallback(table, r, m, group, logRequest, need) : r;
 * ```
 */
export function applyGroupFallback(
  table: ConformalTable,
  r: ConformalResult,
  m: number,
  group: number,
  logRequest: number,
  need = Number.NaN,
  spread = Number.NaN,
): ConformalResult | undefined {
  if (!table.groupFallback || !Number.isFinite(group)) return undefined;
  const g = fromBand(table, r, m, group, bandOf(table.groupFallback, spread), logRequest, need);
  return g && { ...g, fromGroup: true };
}

/**
 * A fallback's result: `anchor` plus the band's margins, never below the recent-need floor, at
 * most the request where limits are enforced (then `capped` and `atRequest`); undefined when that
 * value would be as wasteful as the abstention threshold forbids, its waste measured from the log
 * use `centre` (the model's centre, or the fallback's own estimate). Shared by the group's record
 * and the request (`request-fallback.ts`), which say which they are.
 *
 * @example
 * ```ts
 * const g = fromBand(table, r, m, group, band, logRequest, need);
 * if (g) return { ...g, fromGroup: true };
 * ```
 */
export function fromBand(
  table: ConformalTable,
  r: ConformalResult,
  centre: number,
  anchor: number,
  band: GroupFallbackBand,
  logRequest: number,
  need: number,
): ConformalResult | undefined {
  let logValue = Math.max(anchor + band.upper, Number.isNaN(need) ? Number.NEGATIVE_INFINITY : need);
  const enforced = table.enforcedLimit && !Number.isNaN(logRequest) && logValue >= logRequest;
  if (enforced) logValue = logRequest;
  const limit = table.maxExcess + 1e-5 * Math.abs(table.maxExcess);
  if (!(excessOf(table, centre, logValue) <= limit)) return undefined;
  return {
    ...r,
    logValue,
    logModelValue: logValue,
    logLow: Math.min(anchor + band.low, logValue),
    capped: enforced,
    atRequest: enforced,
    confidence: band.confidence,
    tooUncertain: false,
  };
}
