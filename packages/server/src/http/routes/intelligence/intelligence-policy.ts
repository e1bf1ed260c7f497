import { checkPolicy, type Policy, type PolicySimulationRequest } from "@jobsight/schemas";
import type { SqlPool } from "../../../data-plane/storage/database.js";
import { recordedPredictions } from "../../../data-plane/stores/recorded-predictions.js";
import { ForbiddenError, ValidationError } from "../../../errors.js";
import type { IntelligenceService } from "../../../intelligence/intelligence-service.js";
import { beforePolicy } from "../../../intelligence/policy/before-policy.js";
import { simulatePolicy } from "../../../intelligence/policy/policy-simulate.js";
import { accessScope } from "../access.js";
import type { RouteContext, RouteHandlers } from "../route-handler.js";

const WEEK_MS = 7 * 86_400_000;

/**
 * The platform team's policy: read it (platform, schedulers), replace it (platform), simulate a
 * candidate on the predictions recorded over a period (platform). The schema checks every field;
 * `checkPolicy` then refuses rules that contradict each other. The policy is site-wide, so a
 * token bound to one cluster may not change it.
 *
 * @example
 * ```ts
 * registerApiRoutes(app, { ...policyRoutes(service, storage.pool) });
 * ```
 */
export function policyRoutes(service: IntelligenceService, pool: SqlPool): RouteHandlers {
  return {
    getPolicy: async () => service.policy(),
    putPolicy: async ({ body, principal }: RouteContext<Policy>) => {
      if (principal?.cluster) {
        throw new ForbiddenError(
          `The policy is site-wide; a token bound to cluster ${principal.cluster} may not change it`,
        );
      }
      const problems = checkPolicy(body);
      if (problems.length > 0) throw new ValidationError(problems);
      return service.setPolicy(body, principal?.user ?? "unknown");
    },
    // Nothing is stored or applied; a cluster-bound token simulates on its own cluster's jobs.
    simulatePolicy: async ({ body, principal }: RouteContext<PolicySimulationRequest>) => {
      const scope = accessScope(principal, body.cluster);
      const problems = checkPolicy(body.policy).map((p) => ({ ...p, path: `/policy${p.path}` }));
      const to = body.to ? new Date(body.to) : new Date();
      const from = body.from ? new Date(body.from) : new Date(to.getTime() - WEEK_MS);
      if (from >= to) problems.push({ path: "/from", message: "must be before to" });
      if (problems.length > 0) throw new ValidationError(problems);
      const recorded = await recordedPredictions(pool, { from, to, cluster: scope.cluster });
      // Each job with the model's own values, so the simulated policy sees every rule that limits one.
      const jobs = recorded.map((r) => ({
        spec: r.spec,
        resources: beforePolicy(r.resources, r.recommendations),
      }));
      const simulation = simulatePolicy(jobs, body.policy);
      return { ...simulation, from: from.toISOString(), to: to.toISOString() };
    },
  };
}
