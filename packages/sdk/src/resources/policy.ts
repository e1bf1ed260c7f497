import type {
  Policy,
  PolicyAuditPage,
  PolicyAuditRecord,
  PolicySimulation,
  PolicySimulationRequest,
} from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";
import { PagedList } from "./paged-list.js";

/** Filters of {@link PolicyResource.audit}. */
export type PolicyAuditListQuery = {
  cluster?: string;
  user?: string;
  /** ISO 8601 timestamps: recorded at or after `from`, before `to`. */
  from?: string;
  to?: string;
  /** Page size, 1–1000. @default 100 */
  limit?: number;
  cursor?: string;
};

/** The platform team's policy: what scheduler integrations may change, and what they changed. */
export class PolicyResource {
  constructor(private readonly transport: Transport) {}

  /**
   * The policy in force (platform and scheduler roles).
   *
   * @example
   * ```ts
   * const policy = await client.policy.get();
   * console.log(policy.name, policy.maxDecrease);
   * ```
   */
  get(options?: RequestOptions): Promise<Policy> {
    return this.transport.request<Policy>({ operationId: "getPolicy", options });
  }

  /**
   * Replace the policy (platform role, site-wide token). The server refuses a policy whose caps
   * and floors cross, naming the field.
   *
   * @example
   * ```ts
   * await client.policy.put({ name: "gentle", maxDecrease: { memory: 0.3 }, leaveAlone: ["gpus"] });
   * ```
   */
  put(policy: Policy, options?: RequestOptions): Promise<Policy> {
    return this.transport.request<Policy>({ operationId: "putPolicy", body: policy, options });
  }

  /**
   * What a policy would have changed on the predictions recorded over a period (default: the
   * last 7 days). Nothing is stored or applied.
   *
   * @example
   * ```ts
   * const sim = await client.policy.simulate({ policy: { name: "tighter", maxDecrease: { memory: 0.5 } } });
   * for (const r of sim.resources) console.log(r.resource, `${r.changed}/${r.jobs}`);
   * ```
   */
  simulate(request: PolicySimulationRequest, options?: RequestOptions): Promise<PolicySimulation> {
    return this.transport.request<PolicySimulation>({
      operationId: "simulatePolicy",
      body: request,
      options,
    });
  }

  /**
   * The changes scheduler integrations applied (or, in shadow mode, would have applied), newest
   * first, fetched page by page: who, what, before, after, model version, limiting rule.
   *
   * @example
   * ```ts
   * for await (const change of client.policy.audit({ cluster: "hpc1", user: "alice" })) {
   *   console.log(change.resource, change.before, "→", change.after, change.limitedBy);
   * }
   * ```
   */
  audit(query: PolicyAuditListQuery = {}, options?: RequestOptions): PagedList<PolicyAuditRecord> {
    return new PagedList<PolicyAuditRecord>((cursor) =>
      this.transport.request<PolicyAuditPage>({
        operationId: "listPolicyAudit",
        query: { ...query, cursor: cursor ?? query.cursor },
        options,
      }),
    );
  }
}
