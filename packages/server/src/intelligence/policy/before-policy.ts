import type { ResourcePrediction } from "@jobsight/schemas";

/** The model's own value of a resource before the policy, as recorded beside the served one. */
export type RecommendedValue = { resource: ResourcePrediction["resource"]; value?: number };

/**
 * Served resources turned back into what the model recommended before the policy: each
 * recommendation takes the model's own value and loses the adjustments. Callers that apply the
 * policy themselves (scheduler integrations, simulations) then see every rule that limits a
 * value, not a value that was already limited once.
 *
 * @example
 * ```ts
 * beforePolicy(recorded.resources, recorded.recommendations);
 * // [{ resource: "memory", status: "ok", value: 3 GiB, … }] where the served value was 4 GiB (a floor)
 * ```
 */
export function beforePolicy(
  served: readonly ResourcePrediction[],
  recommended: readonly RecommendedValue[],
): ResourcePrediction[] {
  const own = new Map(recommended.map((r) => [r.resource, r.value]));
  return served.map((r) => {
    if (r.status !== "ok") return r;
    const { adjustments: _, ...rest } = r;
    return { ...rest, value: own.get(r.resource) ?? r.value };
  });
}
