import type { CostRates } from "@jobsight/schemas";
import type { ConfigReader } from "../config-reader.js";

const CURRENCY = /^[A-Z]{3}$/;

/**
 * Reads `cost`: the site's rates, or `undefined` when no rate is set (then no money is shown
 * anywhere). A rate needs a currency; GPU types are kept in lower case, as they are matched.
 *
 * @example
 * ```ts
 * readCost(root.child("cost")); // { currency: "EUR", coreHour: 0.02, gpuHourByType: { a100: 2.5 } }
 * ```
 */
export function readCost(r: ConfigReader): CostRates | undefined {
  const currency = r.option("cost.currency");
  const rates: Omit<CostRates, "currency"> = {};
  const coreHour = r.option("cost.coreHour");
  if (coreHour !== undefined) rates.coreHour = coreHour;
  const memoryGibHour = r.option("cost.memoryGibHour");
  if (memoryGibHour !== undefined) rates.memoryGibHour = memoryGibHour;
  const gpuHour = r.option("cost.gpuHour");
  if (gpuHour !== undefined) rates.gpuHour = gpuHour;
  const byType: Record<string, number> = {};
  const types = r.child("gpuHourByType");
  for (const type of types.keys()) {
    const rate = types.option("cost.gpuHourByType.<type>", { key: type });
    if (rate !== undefined) byType[type.toLowerCase()] = rate;
  }
  if (Object.keys(byType).length > 0) rates.gpuHourByType = byType;
  r.rejectUnknownKeys();
  if (Object.keys(rates).length === 0) return undefined;
  if (currency === undefined) {
    r.issue("currency", "is required with a rate (the ISO 4217 code of the rates, e.g. EUR)");
    return undefined;
  }
  if (!CURRENCY.test(currency)) {
    r.issue("currency", `must be an ISO 4217 code of three capital letters (e.g. EUR), got ${currency}`);
    return undefined;
  }
  return { currency, ...rates };
}
