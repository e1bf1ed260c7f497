import { type Static, Type } from "@sinclair/typebox";
import { Name, ResourceName } from "../common.js";

/** A value per resource, in the resource's unit (bytes, cores, devices, seconds). */
export const ResourceValues = Type.Object(
  {
    memory: Type.Optional(Type.Number({ minimum: 0, description: "Bytes." })),
    cores: Type.Optional(Type.Number({ minimum: 0, description: "Cores." })),
    gpus: Type.Optional(Type.Number({ minimum: 0, description: "Devices." })),
    gpuMemory: Type.Optional(Type.Number({ minimum: 0, description: "Bytes." })),
    walltime: Type.Optional(Type.Number({ minimum: 0, description: "Seconds." })),
  },
  { additionalProperties: false, description: "A value per resource, in the resource's unit." },
);
export type ResourceValues = Static<typeof ResourceValues>;

/** A fraction per resource between 0 and 1. */
export const ResourceFractions = Type.Object(
  {
    memory: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    cores: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    gpus: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    gpuMemory: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    walltime: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false, description: "A fraction per resource, 0 to 1." },
);

/** Floors and caps of one partition (or queue). */
export const PartitionRules = Type.Object(
  {
    partition: Name("Partition or queue the rules apply to.", 128),
    floors: Type.Optional(ResourceValues),
    caps: Type.Optional(ResourceValues),
    nodeCapacity: Type.Optional(ResourceValues),
  },
  { additionalProperties: false, description: "Floors, caps and node capacity of one partition." },
);

/**
 * The platform team's rules for applying recommendations.
 *
 * @example
 * ```ts
 * const policy: Policy = {
 *   name: "default", minConfidence: 0.9, neverLower: ["gpus"],
 *   maxDecrease: { memory: 0.5, walltime: 0.5 }, floors: { memory: 1024 ** 3 },
 * };
 * ```
 */
export const Policy = Type.Object(
  {
    name: Name("Policy name.", 128),
    floors: Type.Optional(ResourceValues),
    caps: Type.Optional(ResourceValues),
    partitions: Type.Optional(
      Type.Array(PartitionRules, { description: "Per-partition floors, caps and node capacity." }),
    ),
    maxDecrease: Type.Optional(ResourceFractions),
    maxIncrease: Type.Optional(
      Type.Object(
        {
          memory: Type.Optional(Type.Number({ minimum: 0 })),
          cores: Type.Optional(Type.Number({ minimum: 0 })),
          gpus: Type.Optional(Type.Number({ minimum: 0 })),
          gpuMemory: Type.Optional(Type.Number({ minimum: 0 })),
          walltime: Type.Optional(Type.Number({ minimum: 0 })),
        },
        {
          additionalProperties: false,
          description: "Largest relative increase per step, e.g. 1 = at most double.",
        },
      ),
    ),
    neverLower: Type.Optional(
      Type.Array(ResourceName, { uniqueItems: true, description: "Resources never lowered." }),
    ),
    leaveAlone: Type.Optional(
      Type.Array(ResourceName, { uniqueItems: true, description: "Resources never touched at all." }),
    ),
    minConfidence: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: "Recommendations with less confidence are not applied.",
      }),
    ),
    optOutUsers: Type.Optional(
      Type.Array(Name("User.", 128), { description: "Users whose jobs are never changed." }),
    ),
    namespaces: Type.Optional(
      Type.Object(
        {
          include: Type.Optional(Type.Array(Name("Namespace.", 128))),
          exclude: Type.Optional(Type.Array(Name("Namespace.", 128))),
        },
        { additionalProperties: false, description: "Kubernetes namespaces opted in or out." },
      ),
    ),
    optOutLabel: Type.Optional(
      Name('A pod label that opts a pod out when set to "false", e.g. jobsight.io/resize.', 253),
    ),
  },
  {
    $id: "Policy",
    additionalProperties: false,
    description: "The platform team's rules for applying recommendations.",
  },
);
export type Policy = Static<typeof Policy>;
