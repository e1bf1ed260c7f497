import type { Role } from "@jobsight/schemas";

/** How a principal proved who it is. */
export type PrincipalSource = "oidc" | "api-token";

/**
 * Who is calling, after authentication: the one shape the authorisation rules see, whether the
 * caller signed in through the site's identity provider or presented a scoped API token.
 */
export type Principal = {
  /** Stable id of the caller: the OIDC `sub`, or the API token's id. */
  subject: string;
  /** The user name jobs are recorded under (SLURM user, Kubernetes user); absent for machine tokens. */
  user?: string;
  /** Roles granted; an empty list grants nothing. */
  roles: readonly Role[];
  /** Clusters the principal acts on, or `"all"` for every cluster of the site. */
  clusters: "all" | readonly string[];
  /** How the principal was authenticated. */
  source: PrincipalSource;
};

/**
 * True when `cluster` is one of the principal's clusters.
 *
 * @example
 * ```ts
 * inPrincipalClusters({ ...p, clusters: ["hpc1"] }, "hpc1"); // true
 * ```
 */
export function inPrincipalClusters(principal: Principal, cluster: string | undefined): boolean {
  if (cluster === undefined) return false;
  return principal.clusters === "all" || principal.clusters.includes(cluster);
}
