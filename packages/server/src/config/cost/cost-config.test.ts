import { describe, expect, it } from "vitest";
import type { ConfigError } from "../config-error.js";
import { configFromEnv } from "../config-sources.js";
import { parseServerConfig } from "../parse-config.js";

const issues = (raw: unknown) => {
  try {
    parseServerConfig(raw);
    return [];
  } catch (error) {
    return (error as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
};

describe("cost configuration", () => {
  it("has no rates by default: no money anywhere", () => {
    expect(parseServerConfig({}).cost).toBeUndefined();
    expect(parseServerConfig({ cost: { currency: "EUR" } }).cost).toBeUndefined();
  });

  it("reads decimal rates from the file and the environment, GPU types in lower case", () => {
    expect(
      parseServerConfig({ cost: { currency: "EUR", coreHour: 0.02, gpuHourByType: { A100: 2.5 } } }).cost,
    ).toEqual({ currency: "EUR", coreHour: 0.02, gpuHourByType: { a100: 2.5 } });
    const env = configFromEnv({ JOBSIGHT_COST_CURRENCY: "CHF", JOBSIGHT_COST_MEMORY_GIB_HOUR: "0.004" });
    expect(parseServerConfig(env).cost).toEqual({ currency: "CHF", memoryGibHour: 0.004 });
  });

  it("reports a rate without a currency, a bad currency, and negative or non-numeric rates at once", () => {
    expect(issues({ cost: { coreHour: 0.02 } })).toEqual([
      "cost.currency: is required with a rate (the ISO 4217 code of the rates, e.g. EUR)",
    ]);
    expect(issues({ cost: { currency: "euro", coreHour: 1 } })).toEqual([
      "cost.currency: must be an ISO 4217 code of three capital letters (e.g. EUR), got euro",
    ]);
    expect(
      issues({ cost: { currency: "EUR", coreHour: -1, gpuHour: "1e3", gpuHourByType: { a100: "x" } } }),
    ).toEqual([
      "cost.coreHour: must be at least 0, got -1",
      'cost.gpuHour: must be a number, got "1e3"',
      'cost.gpuHourByType.a100: must be a number, got "x"',
    ]);
    expect(issues({ cost: { currency: "EUR", coreHour: 1, perCore: 2 } })).toEqual([
      "cost.perCore: is not a known setting",
    ]);
  });
});
