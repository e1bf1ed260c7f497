import { KEEP_REQUEST_GRACE } from "../calibration/conformal-table.js";
import type { ResourceModel } from "./resource-model.js";

/** Within this (log) of the request, a recent need is the request itself (float32 feature rows). */
const NEED_AT_REQUEST = 1e-3;

// Keyed by the feature list, which a recalibrated copy of a model shares.
const needColumns = new WeakMap<string[], number>();
const heldColumns = new WeakMap<string[], { need: number; count: number; censored: number }>();

/** Finished jobs of a group before its record against its requests counts. */
export const HELD_MIN_JOBS = 10;

/** Finished jobs of a group before its largest recent use is a record to calibrate. */
export const GROUP_MIN_JOBS = 5;

const recordColumns = new WeakMap<string[], { max: number; count: number; censored: number; std: number }>();

/**
 * The log value a recommendation never goes below: what the same user's same program recently
 * needed relative to its requests (`app_max_by_request`, the largest used/requested of the group's
 * last jobs), applied to this job's request. Where the site kills jobs at their request, a need at
 * (or past) the request is the request itself; elsewhere it is at most the model's `maxLogValue`.
 * NaN without a request or such history. Calibration and serving both use it, so the calibrated
 * confidences are those of the values served.
 *
 * @example
 * ```ts
 * const need = recentNeedFloor(model, row, Math.log(request)); // NaN, or a log value
 * ```
 */
export function recentNeedFloor(
  model: Pick<ResourceModel, "featureNames" | "maxLogValue" | "calibration">,
  row: ArrayLike<number>,
  logRequest: number,
): number {
  let k = needColumns.get(model.featureNames);
  if (k === undefined) {
    k = model.featureNames.indexOf("app_max_by_request");
    needColumns.set(model.featureNames, k);
  }
  if (k < 0 || Number.isNaN(logRequest)) return Number.NaN;
  const need = row[k];
  if (Number.isNaN(need)) return Number.NaN;
  if (model.calibration.enforcedLimit && need >= logRequest - NEED_AT_REQUEST) return logRequest;
  return Math.min(need, model.maxLogValue);
}

/**
 * Whether the same user's same program has a record of staying within its requests: at least
 * {@link HELD_MIN_JOBS} finished jobs, none of those remembered killed or above its request by more
 * than the keep grace (`app_max_by_request`, `app_censored_max`). The calibration decides per cell
 * whether such a record is trusted enough to cap a value at the request.
 *
 * @example
 * ```ts
 * if (requestHeld(model, row, Math.log(request))) console.log("the request has held");
 * ```
 */
export function requestHeld(
  model: Pick<ResourceModel, "featureNames">,
  row: ArrayLike<number>,
  logRequest: number,
): boolean {
  let c = heldColumns.get(model.featureNames);
  if (c === undefined) {
    const names = model.featureNames;
    c = {
      need: names.indexOf("app_max_by_request"),
      count: names.indexOf("app_count"),
      censored: names.indexOf("app_censored_max"),
    };
    heldColumns.set(model.featureNames, c);
  }
  if (c.need < 0 || c.count < 0 || c.censored < 0 || Number.isNaN(logRequest)) return false;
  const need = row[c.need];
  // Float32 rows: the count's log1p and the need a hair off their exact values.
  return (
    row[c.count] >= Math.log1p(HELD_MIN_JOBS) - 1e-6 &&
    Number.isNaN(row[c.censored]) &&
    !Number.isNaN(need) &&
    need <= logRequest + KEEP_REQUEST_GRACE + NEED_AT_REQUEST
  );
}

/**
 * The group's record: the largest use (log) among the same user's same program's recent jobs,
 * killed ones counted at what they had used, once it has {@link GROUP_MIN_JOBS} finished jobs; NaN
 * before. Calibrated per table (`fitGroupFallback`) for the jobs the model is too unsure of.
 *
 * @example
 * ```ts
 * const record = groupRecord(model, row); // NaN, or a log value
 * ```
 */
export function groupRecord(model: Pick<ResourceModel, "featureNames">, row: ArrayLike<number>): number {
  const c = groupColumns(model);
  if (c.max < 0 || c.count < 0 || c.censored < 0) return Number.NaN;
  if (!(row[c.count] >= Math.log1p(GROUP_MIN_JOBS) - 1e-6) || Number.isNaN(row[c.max])) return Number.NaN;
  const killed = row[c.censored];
  return Number.isNaN(killed) ? row[c.max] : Math.max(row[c.max], killed);
}

/**
 * How much the group's recent uses vary: the standard deviation (log) of the values its record is
 * the largest of; NaN where the model has no such column. The fallback's margin is calibrated per
 * band of it, so a group that repeats itself is not given the margin an erratic one needs.
 *
 * @example
 * ```ts
 * const spread = groupSpread(model, row); // 0.05: the group's jobs vary by about 5%
 * ```
 */
export function groupSpread(model: Pick<ResourceModel, "featureNames">, row: ArrayLike<number>): number {
  const c = groupColumns(model);
  return c.std < 0 ? Number.NaN : row[c.std];
}

function groupColumns(model: Pick<ResourceModel, "featureNames">) {
  let c = recordColumns.get(model.featureNames);
  if (c === undefined) {
    const names = model.featureNames;
    c = {
      max: names.indexOf("app_max"),
      count: names.indexOf("app_count"),
      censored: names.indexOf("app_censored_max"),
      std: names.indexOf("app_std"),
    };
    recordColumns.set(model.featureNames, c);
  }
  return c;
}
