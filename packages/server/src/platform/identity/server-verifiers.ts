import type { OidcConfig } from "../../config/security-config.js";
import type { ApiTokenConfig } from "../../config/server-config.js";
import type { ApiTokenStore } from "../../data-plane/stores/api-token-store.js";
import { ApiTokenVerifier } from "./api-token-verifier.js";
import { OidcVerifier } from "./oidc-verifier.js";
import type { TokenVerifier } from "./principal.js";
import { oidcTokenVerifier } from "./token-verifiers.js";

/** Options of {@link serverVerifiers}. */
export type ServerVerifiersOptions = {
  /** The tokens of the configuration file (`auth.tokens`). @default [] */
  tokens?: readonly ApiTokenConfig[];
  /** Issued API tokens: the data plane's `storage.tokens`. */
  store: Pick<ApiTokenStore, "findByHash">;
  /** OIDC sign-in; absent: no OIDC verifier. @default undefined */
  oidc?: OidcConfig;
};

/**
 * The OIDC verifier from the `oidc` configuration section.
 *
 * @example
 * ```ts
 * const oidc = oidcVerifierFromConfig(config.oidc); // then oidc.verify(jwt)
 * ```
 */
export function oidcVerifierFromConfig(oidc: OidcConfig): OidcVerifier {
  return new OidcVerifier({
    issuer: oidc.issuer,
    audience: oidc.audience,
    algorithms: oidc.algorithms,
    clockToleranceSeconds: oidc.clockToleranceSeconds,
    jwksCooldownMs: oidc.jwksCooldownSeconds * 1000,
    ...(oidc.jwksUri ? { jwksUri: oidc.jwksUri } : {}),
    claims: {
      userClaim: oidc.claims.user,
      groupsClaim: oidc.claims.groups,
      clustersClaim: oidc.claims.clusters,
      groupGrants: oidc.groupGrants,
      defaultRoles: oidc.defaultRoles,
    },
  });
}

/**
 * The server's verifiers: OIDC sign-in when configured (it decides JWT-shaped tokens only), then
 * the {@link ApiTokenVerifier} for the configured tokens and the issued ones (a revocation with
 * `jobsight-server token revoke` takes effect on the next request).
 *
 * @example
 * ```ts
 * const verifiers = serverVerifiers({ tokens: config.auth.tokens, store: storage.tokens, oidc: config.oidc });
 * await app.register(authPlugin, { verifiers });
 * ```
 */
export function serverVerifiers(options: ServerVerifiersOptions): TokenVerifier[] {
  const apiTokens = new ApiTokenVerifier({ tokens: options.tokens ?? [], store: options.store });
  return options.oidc ? [oidcTokenVerifier(oidcVerifierFromConfig(options.oidc)), apiTokens] : [apiTokens];
}
