import { type Static, Type } from "@sinclair/typebox";

const Rate = (description: string) => Type.Number({ minimum: 0, description });
const Money = (description: string) => Type.Number({ minimum: 0, description });

/** The resources a site puts a price on. */
export const PricedResource = Type.Union(
  [Type.Literal("cores"), Type.Literal("memory"), Type.Literal("gpus")],
  {
    description: "A priced resource: core-hours, GiB-hours of memory or GPU-hours.",
  },
);
export type PricedResource = Static<typeof PricedResource>;

/**
 * The rates a site configured (`cost.*` of the server): what an hour of each resource costs. A
 * resource without a rate is never priced, not even at zero.
 */
export const CostRates = Type.Object(
  {
    currency: Type.String({
      pattern: "^[A-Z]{3}$",
      description: "ISO 4217 code of every amount of money, e.g. EUR.",
    }),
    coreHour: Type.Optional(Rate("Price of one reserved CPU core for one hour.")),
    memoryGibHour: Type.Optional(Rate("Price of one GiB of reserved memory for one hour.")),
    gpuHour: Type.Optional(Rate("Price of one GPU-hour of a type gpuHourByType does not name.")),
    gpuHourByType: Type.Optional(
      Type.Record(Type.String(), Rate("Price of one GPU-hour of this type."), {
        description: "Price of a GPU-hour by GPU type (lower case, as jobs request it, e.g. a100).",
      }),
    ),
  },
  { additionalProperties: false, description: "The site's rates, per resource-hour." },
);
export type CostRates = Static<typeof CostRates>;

/** Reserved and unused GPU-seconds of one GPU type in a group of jobs. */
export const WasteGpuType = Type.Object(
  {
    type: Type.String({ description: "GPU type the jobs requested, lower case; empty when none was named." }),
    gpuSecondsRequested: Type.Number({ minimum: 0, description: "Σ requested GPUs × run time." }),
    gpuSecondsUsed: Type.Number({ minimum: 0, description: "Σ GPUs that did work × run time." }),
    idleGpuSeconds: Type.Optional(
      Type.Number({ minimum: 0, description: "GPU-seconds the samples saw idle (see idleGpuSeconds)." }),
    ),
  },
  { additionalProperties: false, description: "GPU-seconds of one GPU type." },
);
export type WasteGpuType = Static<typeof WasteGpuType>;

/** Money for an amount of core-, memory- and GPU-hours, per resource, at the site's rates. */
export const ResourceCost = Type.Object(
  {
    cores: Type.Optional(Money("Core-hours × coreHour.")),
    memory: Type.Optional(Money("GiB-hours × memoryGibHour.")),
    gpus: Type.Optional(Money("GPU-hours × the rate of their type (gpuHourByType, else gpuHour).")),
    total: Money("The sum of the priced resources."),
    unpriced: Type.Optional(
      Type.Array(PricedResource, {
        description: "Resources with hours but no rate (or GPUs of a type without one): left out of total.",
      }),
    ),
  },
  { additionalProperties: false, description: "Money per resource, in the report's currency." },
);
export type ResourceCost = Static<typeof ResourceCost>;

/** A waste row's money: what was reserved and unused, and what the samples saw idle. */
export const WasteCost = Type.Object(
  {
    unused: ResourceCost,
    idle: Type.Optional(ResourceCost),
  },
  {
    additionalProperties: false,
    description:
      "Money of the unused (requested − used) and of the sampled idle core- and GPU-hours, at the site's rates.",
  },
);
export type WasteCost = Static<typeof WasteCost>;
