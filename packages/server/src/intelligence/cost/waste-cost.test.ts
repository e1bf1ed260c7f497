import type { WasteRow } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { priceWasteReport, wasteRowCost } from "./waste-cost.js";

const HOUR = 3600;
const GIB = 2 ** 30;

const row = (extra: Partial<WasteRow> = {}): WasteRow => ({
  key: "alice",
  jobs: 2,
  memoryRequestedByteSeconds: 64 * GIB * 2 * HOUR,
  memoryUsedByteSeconds: 16 * GIB * 2 * HOUR,
  coreSecondsRequested: 8 * 2 * HOUR,
  coreSecondsUsed: 2 * HOUR,
  gpuSecondsRequested: 4 * 2 * HOUR,
  gpuSecondsUsed: 2 * 2 * HOUR,
  walltimeRequestedSeconds: 8 * HOUR,
  walltimeUsedSeconds: 2 * HOUR,
  ...extra,
});

const RATES = {
  currency: "EUR",
  coreHour: 0.05,
  memoryGibHour: 0.01,
  gpuHour: 1,
  gpuHourByType: { a100: 3 },
};

describe("wasteRowCost", () => {
  it("prices requested − used per resource, GPUs by the type requested", () => {
    const cost = wasteRowCost(
      row({
        gpuTypes: [
          { type: "a100", gpuSecondsRequested: 2 * 2 * HOUR, gpuSecondsUsed: 0 },
          { type: "", gpuSecondsRequested: 2 * 2 * HOUR, gpuSecondsUsed: 2 * 2 * HOUR },
        ],
      }),
      RATES,
    );
    // 14 core-hours × 0.05, 96 GiB-hours × 0.01, 4 A100-hours × 3 (the untyped GPUs were all used).
    expect(cost.unused).toEqual({ cores: 0.7, memory: 0.96, gpus: 12, total: 13.66 });
    expect(cost.idle).toBeUndefined();
  });

  it("prices the sampled idle time only for what samples observed, and never memory", () => {
    const cost = wasteRowCost(
      row({
        idleCoreSeconds: 10 * HOUR,
        observedCoreSeconds: 16 * HOUR,
        idleGpuSeconds: 5 * HOUR,
        observedGpuSeconds: 0,
      }),
      RATES,
    );
    expect(cost.idle).toEqual({ cores: 0.5, total: 0.5 });
  });

  it("treats rows without a GPU split as GPUs of no named type", () => {
    expect(wasteRowCost(row(), { currency: "EUR", gpuHourByType: { a100: 3 } }).unused).toEqual({
      total: 0,
      unpriced: ["cores", "memory", "gpus"],
    });
  });
});

describe("priceWasteReport", () => {
  it("adds each row's cost and the rates applied", () => {
    const report = priceWasteReport(
      { generatedAt: "2026-12-02T10:00:00Z", by: "user", rows: [row()] },
      RATES,
    );
    expect(report.rates).toEqual(RATES);
    expect(report.rows[0].cost?.unused.total).toBe(0.7 + 0.96 + 4);
  });
});
