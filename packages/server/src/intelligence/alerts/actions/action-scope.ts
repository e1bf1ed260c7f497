import type { Policy } from "@jobsight/schemas";

/** Who may be acted on: the site's allow-lists (`alerts.actions.*`); an empty list allows everyone. */
export type ActionScope = {
  clusters: readonly string[];
  users: readonly string[];
  accounts: readonly string[];
  partitions: readonly string[];
};

/** The job an action would be taken on, as its record describes it. */
export type ActionTarget = {
  cluster: string;
  user: string;
  account?: string;
  partition?: string;
  scheduler?: string;
};

const allows = (list: readonly string[], value: string | undefined) =>
  list.length === 0 || (value !== undefined && list.includes(value));

/**
 * Why the platform's policy forbids acting on `target`, or `undefined` when it may be: the
 * allow-lists of `alerts.actions` (a job whose account or partition is unknown is outside a
 * non-empty list), then the platform policy's own exclusions, which bind actions as they bind
 * changes to submissions: its `optOutUsers`, and for Kubernetes the namespaces it leaves out.
 *
 * @example
 * ```ts
 * refusal({ cluster: "hpc1", user: "alice" }, { clusters: [], users: ["bob"], accounts: [], partitions: [] }, policy);
 * // "user alice is not in alerts.actions.users"
 * ```
 */
export function refusal(target: ActionTarget, scope: ActionScope, policy: Policy): string | undefined {
  if (!allows(scope.clusters, target.cluster))
    return `cluster ${target.cluster} is not in alerts.actions.clusters`;
  if (!allows(scope.users, target.user)) return `user ${target.user} is not in alerts.actions.users`;
  if (!allows(scope.accounts, target.account))
    return `account ${target.account ?? "(unknown)"} is not in alerts.actions.accounts`;
  if (!allows(scope.partitions, target.partition))
    return `partition ${target.partition ?? "(unknown)"} is not in alerts.actions.partitions`;
  if (policy.optOutUsers?.includes(target.user)) return `user ${target.user} opted out (policy optOutUsers)`;
  if (target.scheduler === "kubernetes" && policy.namespaces) {
    const { include, exclude } = policy.namespaces;
    const ns = target.account;
    if (ns !== undefined && exclude?.includes(ns)) return `namespace ${ns} is excluded by the policy`;
    if (include && (ns === undefined || !include.includes(ns)))
      return `namespace ${ns ?? "(unknown)"} is not included by the policy`;
  }
  return undefined;
}
