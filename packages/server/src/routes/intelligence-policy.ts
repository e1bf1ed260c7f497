import type { Policy } from "@jobsight/schemas";
import { ForbiddenError, ValidationError } from "../errors.js";
import type { IntelligenceService } from "../intelligence/service/intelligence-service.js";
import { checkPolicy } from "../policy/check-policy.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

/**
 * The platform team's policy: read it (platform, schedulers), replace it (platform). The schema
 * checks every field; `checkPolicy` then refuses rules that contradict each other. The policy is
 * site-wide, so a token bound to one cluster may not change it.
 *
 * @example
 * ```ts
 * registerApiRoutes(app, { ...policyRoutes(service) });
 * ```
 */
export function policyRoutes(service: IntelligenceService): RouteHandlers {
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
  };
}
