import type { Role } from "@jobsight/schemas";

/** How a caller proved who it is. */
export type IdentitySource = "oidc" | "api-token";

/**
 * What a credential proves, before it becomes a request's `Principal`: whether the caller
 * signed in through the site's identity provider or presented a scoped API token.
 */
export type VerifiedIdentity = {
  /** Stable id of the caller: the OIDC `sub`, or the API token's id. */
  subject: string;
  /** The user name jobs are recorded under (SLURM user, Kubernetes user); absent for machine tokens. */
  user?: string;
  /** Roles granted; an empty list grants nothing. */
  roles: readonly Role[];
  /** Clusters the principal acts on, or `"all"` for every cluster of the site. */
  clusters: "all" | readonly string[];
  /** How the principal was authenticated. */
  source: IdentitySource;
};
