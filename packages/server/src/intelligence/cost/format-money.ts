import type { PricedResource, ResourceCost } from "@jobsight/schemas";

const formats = new Map<string, Intl.NumberFormat>();

/**
 * An amount of money for people, in the currency's own notation (`€12.50`, `CHF 3.00`, `¥1,235`).
 *
 * @example
 * ```ts
 * formatMoney(12.5, "EUR"); // "€12.50"
 * ```
 */
export function formatMoney(amount: number, currency: string): string {
  let format = formats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat("en", { style: "currency", currency });
    formats.set(currency, format);
  }
  return format.format(amount);
}

const NAMES: Record<PricedResource, string> = { cores: "cores", memory: "memory", gpus: "GPUs" };

/**
 * A cost's total with its parts, and what was not priced: `€5.40 (cores €3.40, GPUs €2.00; memory
 * not priced)`.
 *
 * @example
 * ```ts
 * formatCost({ cores: 5, total: 5, unpriced: ["memory"] }, "EUR"); // "€5.00 (cores €5.00; memory not priced)"
 * ```
 */
export function formatCost(cost: ResourceCost, currency: string): string {
  const parts = (["cores", "memory", "gpus"] as const)
    .filter((r) => cost[r] !== undefined)
    .map((r) => `${NAMES[r]} ${formatMoney(cost[r]!, currency)}`);
  const unpriced = cost.unpriced?.map((r) => NAMES[r]).join(", ");
  const detail = [parts.length > 1 ? parts.join(", ") : "", unpriced ? `${unpriced} not priced` : ""]
    .filter((x) => x !== "")
    .join("; ");
  return `${formatMoney(cost.total, currency)}${detail ? ` (${detail})` : ""}`;
}
