import { quantileSorted } from "../stats/quantiles.js";
import {
  applyConformal,
  type CalibrationExample,
  type ConformalResult,
  type ConformalTable,
  excessOf,
  type GroupFallback,
} from "./conformal-table.js";

/** Fewest abstained calibration jobs with a group record before the record is calibrated. */
export const GROUP_FALLBACK_MIN_JOBS = 100;

/**
 * Fits the fallback on the calibration jobs the fitted `table` abstains on and whose group has a
 * record: the upper margin is their finite-sample conformal quantile of `y − group` at the table's
 * miss rate, the low margin the quantile at the range's miss. Undefined with too few such jobs.
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
  const scores: number[] = [];
  for (const e of examples) {
    if (e.group === undefined || !Number.isFinite(e.group)) continue;
    const r = applyConformal(table, e.m, e.s, e.logRequest, true, e.need, e.held);
    if (r.tooUncertain) scores.push(e.y - e.group);
  }
  const n = scores.length;
  if (n < GROUP_FALLBACK_MIN_JOBS) return undefined;
  const sorted = Float64Array.from(scores).sort();
  const rank = Math.min(n, Math.ceil((1 - table.missRate) * (n + 1) - 1e-9));
  const upper = sorted[rank - 1];
  const low = quantileSorted(sorted, rangeMiss);
  let inside = 0;
  for (const z of sorted) if (z >= low && z <= upper) inside++;
  return { upper, low, confidence: inside / n, n };
}

/**
 * The group's calibrated value for a job the model abstained on: its group's recent largest use
 * plus the margin, never below the recent-need floor, at most the request where limits are
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
): ConformalResult | undefined {
  const f = table.groupFallback;
  if (!f || !Number.isFinite(group)) return undefined;
  let logValue = Math.max(group + f.upper, Number.isNaN(need) ? Number.NEGATIVE_INFINITY : need);
  const enforced = table.enforcedLimit && !Number.isNaN(logRequest) && logValue >= logRequest;
  if (enforced) logValue = logRequest;
  const limit = table.maxExcess + 1e-5 * Math.abs(table.maxExcess);
  if (!(excessOf(table, m, logValue) <= limit)) return undefined;
  return {
    ...r,
    logValue,
    logModelValue: logValue,
    logLow: Math.min(group + f.low, logValue),
    capped: enforced,
    atRequest: enforced,
    confidence: f.confidence,
    tooUncertain: false,
    fromGroup: true,
  };
}
