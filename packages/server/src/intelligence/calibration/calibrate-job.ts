import {
  applyConformal,
  type CalibrationExample,
  type ConformalResult,
  type ConformalTable,
} from "./conformal-table.js";
import { applyGroupFallback } from "./group-fallback.js";
import { applyRequestFallback } from "./request-fallback.js";

/**
 * The calibrated bounds a job is served: the table's own; where the table is too unsure of it,
 * its group's calibrated record (when it has one and that is not too wasteful either); and where
 * that fails too, its request, where the request bounded such jobs at the same risk.
 *
 * @example
 * ```ts
 * const r = calibrateJob(model.calibration, { m, s, y: Number.NaN, logRequest, need, held, group });
 * if (!r.tooUncertain) console.log(Math.exp(r.logValue), r.confidence);
 * ```
 */
export function calibrateJob(table: ConformalTable, e: CalibrationExample): ConformalResult {
  const need = e.need ?? Number.NaN;
  const r = applyConformal(table, e.m, e.s, e.logRequest, true, need, e.held ?? false);
  if (!r.tooUncertain) return r;
  return (
    applyGroupFallback(
      table,
      r,
      e.m,
      e.group ?? Number.NaN,
      e.logRequest,
      need,
      e.groupSpread ?? Number.NaN,
    ) ??
    applyRequestFallback(table, r, e.m, e.logRequest, e.held ?? false, need) ??
    r
  );
}
