import { ROLES, type Role } from "@jobsight/schemas";
import type { JWTPayload } from "jose";
import { TokenError } from "./token-error.js";
import type { VerifiedIdentity } from "./verified-identity.js";

/** What membership of one identity-provider group grants. */
export type GroupGrant = {
  /** Roles the group grants. */
  roles: readonly Role[];
  /**
   * Clusters the roles apply to.
   * @default "all"
   */
  clusters?: "all" | readonly string[];
};

/** How a token's claims become a {@link VerifiedIdentity}. */
export type ClaimMappingOptions = {
  /**
   * Claim holding the user name jobs are recorded under; dotted paths reach nested claims. A token
   * without it is refused at sign-in (`TOKEN_NO_USER`); name `sub` here to let the subject be the user.
   * @default "preferred_username"
   */
  userClaim?: string;
  /**
   * Claim listing the caller's groups (array, or a space- or comma-separated string), e.g.
   * `groups` or Keycloak's `realm_access.roles`.
   * @default "groups"
   */
  groupsClaim?: string;
  /**
   * Claim listing the caller's clusters; when a token carries it, it narrows the clusters the
   * groups grant to those it names (it cannot add one).
   * @default "jobsight_clusters"
   */
  clustersClaim?: string;
  /**
   * Group name → what it grants. Groups not named here grant nothing.
   * @default {}
   */
  groupGrants?: Readonly<Record<string, GroupGrant>>;
  /**
   * Roles every signed-in user gets, on every cluster, whatever their groups.
   * @default []
   */
  defaultRoles?: readonly Role[];
};

const ROLE_ORDER = ROLES;

/**
 * Maps verified claims to a principal: `sub` is the subject, the user claim the user, groups
 * become roles through `groupGrants`, and a clusters claim narrows the clusters they grant. A
 * token without `sub` is refused (`TOKEN_CLAIMS`); one without the user claim has no `user` (and
 * `toPrincipal` refuses it); a token whose groups grant nothing yields a principal with no roles,
 * which every protected route refuses with 403.
 *
 * @example
 * ```ts
 * const p = claimsToPrincipal({ sub: "u1", preferred_username: "alice", groups: ["hpc-users"] },
 *   { groupGrants: { "hpc-users": { roles: ["researcher"] } } });
 * // { subject: "u1", user: "alice", roles: ["researcher"], clusters: "all", source: "oidc" }
 * ```
 */
export function claimsToPrincipal(claims: JWTPayload, options: ClaimMappingOptions = {}): VerifiedIdentity {
  if (typeof claims.sub !== "string" || claims.sub.length === 0) {
    throw new TokenError("TOKEN_CLAIMS", "The token has no subject (sub)");
  }
  const user = readClaim(claims, options.userClaim ?? "preferred_username");
  const groups = toList(readClaim(claims, options.groupsClaim ?? "groups"));
  const grants = groups.flatMap((g) => {
    const grant = Object.hasOwn(options.groupGrants ?? {}, g) ? options.groupGrants?.[g] : undefined;
    return grant ? [grant] : [];
  });
  const roles = new Set<Role>(options.defaultRoles ?? []);
  for (const grant of grants) for (const role of grant.roles) roles.add(role);

  let clusters: "all" | string[];
  if ((options.defaultRoles?.length ?? 0) > 0 || grants.some((g) => (g.clusters ?? "all") === "all")) {
    clusters = "all";
  } else {
    clusters = [...new Set(grants.flatMap((g) => (g.clusters === "all" ? [] : [...(g.clusters ?? [])])))];
  }
  const claimed = readClaim(claims, options.clustersClaim ?? "jobsight_clusters");
  if (claimed !== undefined) {
    // The claim narrows what the groups grant, never widens it.
    const granted = clusters;
    clusters = [...new Set(toList(claimed))].filter((c) => granted === "all" || granted.includes(c));
  }
  return {
    subject: claims.sub,
    ...(typeof user === "string" && user.length > 0 ? { user } : {}),
    roles: ROLE_ORDER.filter((r) => roles.has(r)),
    clusters,
    source: "oidc",
  };
}

function readClaim(claims: JWTPayload, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let value: unknown = claims;
  for (const key of path.split(".")) {
    if (!value || typeof value !== "object" || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function toList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string" && v.length > 0);
  if (typeof value === "string") return value.split(/[\s,]+/).filter((v) => v.length > 0);
  return [];
}
