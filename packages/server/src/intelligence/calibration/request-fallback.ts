import {
  type CalibrationExample,
  type ConformalResult,
  type ConformalTable,
  type GroupFallbackBand,
  KEEP_REQUEST_GRACE,
  type RequestFallback,
} from "./conformal-table.js";
import { fitBand, fromBand, GROUP_FALLBACK_MIN_JOBS } from "./group-fallback.js";

/**
 * Fits the request as the candidate for the calibration jobs still abstained on after the group's
 * record (`abstained`): margins of `y − log request` at the table's miss rate and the range's, one
 * band for jobs whose group's recent jobs all stayed within their requests (`held`) and one for the
 * others (pooled where one has too few jobs). A band is kept only where the request, with at most
 * the grace a kept request gets, bounded those jobs at the table's miss rate: there the request
 * did better than abstaining. Undefined when no band is kept.
 *
 * @example
 * ```ts
 * const still = examples.filter((e) => calibrateJob(table, e).tooUncertain);
 * table.requestFallback = fitRequestFallback(table, still, 0.01);
 * ```
 */
export function fitRequestFallback(
  table: ConformalTable,
  abstained: CalibrationExample[],
  rangeMiss: number,
): RequestFallback | undefined {
  const asked = abstained.filter((e) => Number.isFinite(e.logRequest) && Number.isFinite(e.y));
  const fit = (list: CalibrationExample[]) =>
    list.length >= GROUP_FALLBACK_MIN_JOBS
      ? fitBand(
          list.map((e) => e.y - e.logRequest),
          table.missRate,
          rangeMiss,
        )
      : undefined;
  const pooled = fit(asked);
  const grace = table.enforcedLimit ? 0 : KEEP_REQUEST_GRACE;
  const kept = (b: GroupFallbackBand | undefined) => (b && b.upper <= grace ? b : undefined);
  const held = kept(fit(asked.filter((e) => e.held === true)) ?? pooled);
  const other = kept(fit(asked.filter((e) => e.held !== true)) ?? pooled);
  if (!held && !other) return undefined;
  return { ...(held && { held }), ...(other && { other }) };
}

/**
 * The request as the value of a job the model and its group's record are both too unsure of:
 * `request · e^upper` of its band (so never above the request plus a kept request's grace), never
 * below the recent-need floor, at most the request where limits are enforced; undefined (still
 * abstaining) without a kept band or without a request, or when that value would be as wasteful
 * as the abstention threshold forbids.
 *
 * @example
 * ```ts
 * const r = applyRequestFallback(table, abstained, m, Math.log(request), held, need);
 * if (r) console.log(Math.exp(r.logValue)); // about the request
 * ```
 */
export function applyRequestFallback(
  table: ConformalTable,
  r: ConformalResult,
  m: number,
  logRequest: number,
  held: boolean,
  need = Number.NaN,
): ConformalResult | undefined {
  const f = table.requestFallback;
  const band = held ? f?.held : f?.other;
  if (!band || !Number.isFinite(logRequest)) return undefined;
  // Held to the same waste as any advice, measured from what such jobs used of their requests:
  // the model's centre is the guess it was too unsure of, and "keep your request" where the
  // request is itself a wide guess would only trade the abstention for slack.
  const centre = band.centre === undefined ? m : logRequest + band.centre;
  const q = fromBand(table, r, centre, logRequest, band, logRequest, need);
  return q && { ...q, capped: true, atRequest: q.logValue === logRequest, fromRequest: true };
}
