import type { CostRates, PricedResource, ResourceCost } from "@jobsight/schemas";

/** Amounts of resource-hours to price; GPU-hours by GPU type (`""`: no type named). */
export type ResourceHours = {
  coreHours?: number;
  memoryGibHours?: number;
  gpuHoursByType?: Readonly<Record<string, number>>;
};

/**
 * The rate of one GPU-hour of `type`: its own (`gpuHourByType`, compared without case), else the
 * default `gpuHour`, else `undefined` (not priced).
 *
 * @example
 * ```ts
 * gpuHourRate({ currency: "EUR", gpuHour: 1, gpuHourByType: { a100: 2.5 } }, "A100"); // 2.5
 * ```
 */
export function gpuHourRate(rates: CostRates, type: string): number | undefined {
  return rates.gpuHourByType?.[type.toLowerCase()] ?? rates.gpuHour;
}

/**
 * Rounds an amount of money to the currency's minor unit (cents for EUR, none for JPY), as
 * `Intl.NumberFormat` knows it.
 *
 * @example
 * ```ts
 * roundMoney(1.005, "EUR"); // 1.01
 * roundMoney(1234.5, "JPY"); // 1235
 * ```
 */
export function roundMoney(amount: number, currency: string): number {
  const digits = minorDigits(currency);
  const factor = 10 ** digits;
  // EPSILON nudges 1.005 (stored as 1.00499…) to the cent a person expects.
  return Math.round((amount + Number.EPSILON * Math.abs(amount)) * factor) / factor;
}

const digitsCache = new Map<string, number>();

function minorDigits(currency: string): number {
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions()
        .maximumFractionDigits;
    } catch {
      digits = 2;
    }
    digitsCache.set(currency, digits ?? 2);
  }
  return digits ?? 2;
}

/**
 * Money for `hours` at `rates`, per resource and in all, each rounded to the currency's minor
 * unit. A resource with hours and no rate is listed in `unpriced` and left out of the total, never
 * priced at zero; GPU-hours are priced by type, the types without a rate marking GPUs unpriced.
 *
 * @example
 * ```ts
 * priceHours({ currency: "EUR", coreHour: 0.05 }, { coreHours: 100, memoryGibHours: 10 });
 * // { cores: 5, total: 5, unpriced: ["memory"] }
 * ```
 */
export function priceHours(rates: CostRates, hours: ResourceHours): ResourceCost {
  const cost: ResourceCost = { total: 0 };
  const unpriced: PricedResource[] = [];
  const price = (resource: PricedResource, amount: number | undefined, rate: number | undefined) => {
    if (rate !== undefined) cost[resource] = roundMoney((amount ?? 0) * rate, rates.currency);
    else if ((amount ?? 0) > 0) unpriced.push(resource);
  };
  price("cores", hours.coreHours, rates.coreHour);
  price("memory", hours.memoryGibHours, rates.memoryGibHour);
  let gpus: number | undefined;
  let gpusUnpriced = false;
  for (const [type, amount] of Object.entries(hours.gpuHoursByType ?? {})) {
    const rate = gpuHourRate(rates, type);
    if (rate !== undefined) gpus = (gpus ?? 0) + amount * rate;
    else if (amount > 0) gpusUnpriced = true;
  }
  // A rate for GPUs with no GPU-hours is still a price: zero, not unknown.
  if (gpus === undefined && !gpusUnpriced && (rates.gpuHour !== undefined || rates.gpuHourByType)) gpus = 0;
  if (gpus !== undefined) cost.gpus = roundMoney(gpus, rates.currency);
  if (gpusUnpriced) unpriced.push("gpus");
  cost.total = roundMoney((cost.cores ?? 0) + (cost.memory ?? 0) + (cost.gpus ?? 0), rates.currency);
  if (unpriced.length > 0) cost.unpriced = unpriced;
  return cost;
}

/**
 * Whether `rates` price anything: without a rate, no money is shown.
 *
 * @example
 * ```ts
 * pricesAnything({ currency: "EUR" }); // false
 * ```
 */
export function pricesAnything(rates: CostRates | undefined): rates is CostRates {
  if (!rates) return false;
  return (
    rates.coreHour !== undefined ||
    rates.memoryGibHour !== undefined ||
    rates.gpuHour !== undefined ||
    Object.keys(rates.gpuHourByType ?? {}).length > 0
  );
}
