import type { PolicyAuditQuery } from "@jobsight/schemas";
import type {
  PolicyAuditPage,
  PolicyAuditQuery as StoreQuery,
} from "../../../data-plane/stores/policy-audit-store.js";
import { accessScope } from "../access.js";
import type { RouteContext, RouteHandlers } from "../route-handler.js";

/** What the audit route reads from. */
export type PolicyAuditReader = { query(q: StoreQuery): Promise<PolicyAuditPage> };

/**
 * `GET /v1/policy/audit`: every change the scheduler integrations applied under the policy (and,
 * in shadow mode, would have), newest first, for the platform team. A token bound to a cluster
 * reads only that cluster's.
 *
 * @example
 * ```ts
 * registerApiRoutes(app, { ...policyAuditRoutes(new PolicyAuditStore(pool)) });
 * ```
 */
export function policyAuditRoutes(audit: PolicyAuditReader): RouteHandlers {
  return {
    listPolicyAudit: async ({ query, principal }: RouteContext<unknown, PolicyAuditQuery>) => {
      const scope = accessScope(principal, query.cluster);
      return audit.query({ ...query, cluster: scope.cluster });
    },
  };
}
