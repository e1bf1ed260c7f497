import type { ResourceModel } from "./resource-model.js";

/** Within this (log) of the request, a recent need is the request itself (float32 feature rows). */
const NEED_AT_REQUEST = 1e-3;

// Keyed by the feature list, which a recalibrated copy of a model shares.
const needColumns = new WeakMap<string[], number>();

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
