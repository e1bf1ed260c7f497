import { describe, expect, it } from "vitest";
import { gpuHourRate, priceHours, pricesAnything, roundMoney } from "./price-hours.js";

describe("priceHours", () => {
  it("multiplies each resource's hours by its rate and adds them up", () => {
    const rates = { currency: "EUR", coreHour: 0.05, memoryGibHour: 0.004, gpuHour: 1.2 };
    expect(priceHours(rates, { coreHours: 100, memoryGibHours: 500, gpuHoursByType: { "": 10 } })).toEqual({
      cores: 5,
      memory: 2,
      gpus: 12,
      total: 19,
    });
  });

  it("prices GPU-hours by type, falling back to the default GPU-hour rate", () => {
    const rates = { currency: "EUR", gpuHour: 1, gpuHourByType: { a100: 2.5 } };
    expect(priceHours(rates, { gpuHoursByType: { a100: 4, v100: 3 } })).toEqual({ gpus: 13, total: 13 });
    expect(gpuHourRate(rates, "A100")).toBe(2.5);
    expect(gpuHourRate(rates, "")).toBe(1);
  });

  it("never prices a resource without a rate: it is listed as unpriced and left out of the total", () => {
    const cost = priceHours(
      { currency: "EUR", coreHour: 0.05, gpuHourByType: { a100: 2 } },
      { coreHours: 10, memoryGibHours: 50, gpuHoursByType: { a100: 1, h100: 1 } },
    );
    expect(cost).toEqual({ cores: 0.5, gpus: 2, total: 2.5, unpriced: ["memory", "gpus"] });
  });

  it("rounds to the currency's minor unit", () => {
    expect(roundMoney(1.005, "EUR")).toBe(1.01);
    expect(roundMoney(1234.5, "JPY")).toBe(1235);
    expect(priceHours({ currency: "EUR", coreHour: 0.013 }, { coreHours: 1 / 3 })).toEqual({
      cores: 0,
      total: 0,
    });
  });

  it("prices nothing without a rate, whatever the currency", () => {
    expect(pricesAnything(undefined)).toBe(false);
    expect(pricesAnything({ currency: "EUR" })).toBe(false);
    expect(pricesAnything({ currency: "EUR", gpuHourByType: { a100: 2 } })).toBe(true);
  });
});
