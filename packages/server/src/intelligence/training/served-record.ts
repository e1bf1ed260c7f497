import type { DeliveredRecord } from "../calibration/conformal-table.js";
import { recordDelivered } from "../calibration/delivered-confidence.js";
import type { FeatureTable } from "../features/feature-table.js";
import type { ResourceModel } from "../model/resource-model.js";
import { calibrationExamples } from "./train-resource-model.js";

/**
 * The record of what `served`, the model in service, stated and delivered, with the completed jobs
 * of `table` that ended since its last calibration added; undefined when `table` is not built with
 * the served model's features (nothing can be said of its jobs).
 *
 * @example
 * ```ts
 * const record = servedRecord(active, table, 15_000);
 * if (record) model.calibration = withDelivered(model.calibration, record);
 * ```
 */
export function servedRecord(
  served: ResourceModel,
  table: FeatureTable,
  maxJobs: number,
): DeliveredRecord | undefined {
  const sameFeatures =
    table.featureNames.length === served.featureNames.length &&
    table.featureNames.every((f, i) => f === served.featureNames[i]);
  if (!sameFeatures) return undefined;
  const since = served.calibratedAt ?? served.trainedAt;
  const rows: number[] = [];
  for (let i = 0; i < table.rows; i++) {
    if (!Number.isNaN(table.y[i]) && !table.censored[i] && table.end[i] > since) rows.push(i);
  }
  rows.sort((a, b) => table.end[a] - table.end[b] || a - b);
  return recordDelivered(served.calibration, calibrationExamples(served, table, rows), { maxJobs });
}
