import { type Static, Type } from "@sinclair/typebox";
import { ClusterId, ResourceName, Timestamp } from "../common.js";
import { Policy } from "./policy.js";

/**
 * Body of `POST /v1/policy/simulate`: a policy to try on the predictions recorded for past jobs,
 * "what would this policy have changed last week". Nothing is stored or applied.
 *
 * @example
 * ```ts
 * const body: PolicySimulationRequest = { policy: { name: "tighter", maxDecrease: { memory: 0.3 } }, from: "2026-11-25T00:00:00Z" };
 * ```
 */
export const PolicySimulationRequest = Type.Object(
  {
    policy: Policy,
    cluster: Type.Optional(ClusterId),
    // From (inclusive; default 7 days before `to`) until (exclusive; default now).
    from: Type.Optional(Timestamp),
    to: Type.Optional(Timestamp),
  },
  {
    $id: "PolicySimulationRequest",
    additionalProperties: false,
    description: "A policy to simulate on recorded predictions.",
  },
);
export type PolicySimulationRequest = Static<typeof PolicySimulationRequest>;

const Counts = Type.Record(Type.String(), Type.Integer({ minimum: 0 }));

/** What a policy would have done to one resource over the recorded predictions. */
export const ResourceSimulation = Type.Object(
  {
    resource: ResourceName,
    jobs: Type.Integer({ minimum: 0, description: "Predictions with this resource." }),
    changed: Type.Integer({ minimum: 0, description: "Whose value would have differed from the request." }),
    raised: Type.Integer({ minimum: 0 }),
    lowered: Type.Integer({ minimum: 0 }),
    filled: Type.Integer({ minimum: 0, description: "Asked for nothing and would have been given a value." }),
    held: Type.Unsafe<Record<string, number>>({
      ...Counts,
      description: "Recommendations not used, by reason (insufficient_evidence, leave_alone, …).",
    }),
    limitedBy: Type.Unsafe<Record<string, number>>({
      ...Counts,
      description: "Changed jobs by the rule that limited the value.",
    }),
    requestedTotal: Type.Number({ description: "Sum of the requests of the jobs that made one." }),
    appliedTotal: Type.Number({ description: "Sum of what those jobs would have been given." }),
  },
  { additionalProperties: false, description: "The effect of a policy on one resource." },
);

/** The answer of `POST /v1/policy/simulate`. */
export const PolicySimulation = Type.Object(
  {
    policy: Type.String({ description: "Name of the simulated policy." }),
    from: Timestamp,
    to: Timestamp,
    jobs: Type.Integer({ minimum: 0, description: "Recorded predictions the policy was applied to." }),
    resources: Type.Array(ResourceSimulation),
  },
  {
    $id: "PolicySimulation",
    additionalProperties: false,
    description: "What a policy would have changed over a period.",
  },
);
export type PolicySimulation = Static<typeof PolicySimulation>;
