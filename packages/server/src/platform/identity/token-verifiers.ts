import type { Role } from "@jobsight/schemas";
import { decodeProtectedHeader } from "jose";
import { ForbiddenError } from "../../errors.js";
import type { OidcVerifier } from "./oidc-verifier.js";
import type { Principal, TokenVerifier } from "./principal.js";
import { TokenError } from "./token-error.js";
import type { VerifiedIdentity } from "./verified-identity.js";

// When identity-provider groups grant several roles, the request runs as the one that reaches
// furthest: a platform engineer who is also a researcher sees what the platform role sees, and an
// admin (a superset of platform) acts as admin.
const ROLE_PRECEDENCE: readonly Role[] = ["admin", "platform", "scheduler", "researcher", "collector"];

/**
 * The auth plugin's principal (one role, at most one cluster) for a security principal. Refuses
 * (401 `TOKEN_NO_USER`) an identity without a user name, and (403) what that shape cannot hold
 * without widening access: no role, no cluster, or several clusters short of all.
 *
 * @example
 * ```ts
 * toPrincipal({ subject: "u1", user: "alice", roles: ["researcher"], clusters: "all", source: "oidc" });
 * // { role: "researcher", user: "alice", tokenId: "oidc:u1", via: "oidc" }
 * ```
 */
export function toPrincipal(principal: VerifiedIdentity): Principal {
  // Acting under the subject would record and show jobs under an opaque id, or another user's name.
  if (!principal.user) {
    throw new TokenError(
      "TOKEN_NO_USER",
      "The token names no user: it lacks the configured user claim (oidc.claims.user, preferred_username by default)",
    );
  }
  const role = ROLE_PRECEDENCE.find((r) => principal.roles.includes(r));
  if (!role)
    throw new ForbiddenError("Your sign-in grants no Jobsight role; ask the platform team for a group");
  const base = {
    role,
    user: principal.user,
    tokenId: principal.source === "oidc" ? `oidc:${principal.subject}` : principal.subject,
    via: principal.source,
  };
  if (principal.clusters === "all") return base;
  if (principal.clusters.length === 1) return { ...base, cluster: principal.clusters[0] };
  throw new ForbiddenError(
    principal.clusters.length === 0
      ? "Your sign-in grants no cluster"
      : `Your sign-in grants ${principal.clusters.length} clusters; one cluster or all are supported`,
  );
}

function looksLikeJwt(token: string): boolean {
  if (token.split(".").length !== 3) return false;
  try {
    return typeof decodeProtectedHeader(token).alg === "string";
  } catch {
    return false;
  }
}

/**
 * The OIDC verifier as one of the auth plugin's verifiers: JWT-shaped tokens are its to decide
 * (a refusal is a 401 `TokenError` naming the reason), anything else is left to the others.
 *
 * @example
 * ```ts
 * const app = await buildApp({ config, verifiers: [oidcTokenVerifier(new OidcVerifier(config.oidc))] });
 * ```
 */
export function oidcTokenVerifier(oidc: OidcVerifier): TokenVerifier {
  return {
    name: "oidc",
    async verify(token) {
      if (!looksLikeJwt(token)) return undefined;
      return toPrincipal((await oidc.verify(token)).principal);
    },
  };
}
