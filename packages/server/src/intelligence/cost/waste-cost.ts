import type { CostRates, WasteCost, WasteReport, WasteRow } from "@jobsight/schemas";
import { priceHours } from "./price-hours.js";

const HOUR = 3600;
const GIB = 2 ** 30;

// Rows of servers (or fakes) that do not split GPUs by type count as one type not named.
function gpuTypesOf(row: WasteRow): NonNullable<WasteRow["gpuTypes"]> {
  return (
    row.gpuTypes ?? [
      {
        type: "",
        gpuSecondsRequested: row.gpuSecondsRequested,
        gpuSecondsUsed: row.gpuSecondsUsed,
        ...(row.idleGpuSeconds !== undefined ? { idleGpuSeconds: row.idleGpuSeconds } : {}),
      },
    ]
  );
}

/**
 * A waste row's money at `rates`: the unused (requested − used, per resource) and, where samples
 * observed the jobs, the idle core- and GPU-hours. GPU-hours are priced by the type requested.
 *
 * @example
 * ```ts
 * wasteRowCost(row, { currency: "EUR", coreHour: 0.05 }).unused.total; // 3.6 for 72 unused core-hours
 * ```
 */
export function wasteRowCost(row: WasteRow, rates: CostRates): WasteCost {
  const types = gpuTypesOf(row);
  const unusedGpus = Object.fromEntries(
    types.map((t) => [t.type, Math.max(0, t.gpuSecondsRequested - t.gpuSecondsUsed) / HOUR]),
  );
  const cost: WasteCost = {
    unused: priceHours(rates, {
      coreHours: Math.max(0, row.coreSecondsRequested - row.coreSecondsUsed) / HOUR,
      memoryGibHours: Math.max(0, row.memoryRequestedByteSeconds - row.memoryUsedByteSeconds) / GIB / HOUR,
      gpuHoursByType: unusedGpus,
    }),
  };
  // No samples is no evidence of idleness: only what they observed is priced.
  const coresSeen = (row.observedCoreSeconds ?? 0) > 0;
  const gpusSeen = (row.observedGpuSeconds ?? 0) > 0;
  if (coresSeen || gpusSeen) {
    // Memory is never measured idle by the samples, so its rate plays no part here.
    const idleRates: CostRates = {
      currency: rates.currency,
      ...(coresSeen ? { coreHour: rates.coreHour } : {}),
      ...(gpusSeen ? { gpuHour: rates.gpuHour, gpuHourByType: rates.gpuHourByType } : {}),
    };
    cost.idle = priceHours(idleRates, {
      coreHours: coresSeen ? (row.idleCoreSeconds ?? 0) / HOUR : 0,
      gpuHoursByType: gpusSeen
        ? Object.fromEntries(types.map((t) => [t.type, (t.idleGpuSeconds ?? 0) / HOUR]))
        : {},
    });
  }
  return cost;
}

/**
 * The report with each row's `cost` and the `rates` applied.
 *
 * @example
 * ```ts
 * const priced = priceWasteReport(await wasteReport(pool), config.cost);
 * priced.rows[0].cost?.unused.total;
 * ```
 */
export function priceWasteReport(report: WasteReport, rates: CostRates): WasteReport {
  return { ...report, rates, rows: report.rows.map((row) => ({ ...row, cost: wasteRowCost(row, rates) })) };
}
