import type { OidcConfig } from "../../config/security-config.js";
import type { SqlPool } from "../../data-plane/storage/database.js";
import {
  ensureApiTokenSchema,
  PostgresApiTokenStore,
} from "../../data-plane/stores/postgres-api-token-store.js";
import { ApiTokens } from "./api-tokens.js";
import { OidcVerifier } from "./oidc-verifier.js";
import type { TokenVerifier } from "./principal.js";
import { apiTokensVerifier, oidcTokenVerifier } from "./token-verifiers.js";

/** Options of {@link serverVerifiers}. */
export type ServerVerifiersOptions = {
  /** The data plane's pool: scoped API tokens live in its `api_tokens` table. */
  pool: SqlPool;
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
 * The verifiers the server adds to the configured tokens: scoped API tokens issued with
 * `jobsight-server token create` (checked without a cache, so a revocation takes effect on the
 * next request) and, when configured, OIDC sign-in. Completes the `api_tokens` table first.
 *
 * @example
 * ```ts
 * const verifiers = await serverVerifiers({ pool: storage.pool, oidc: config.oidc });
 * await app.register(authPlugin, { verifiers: [...verifiers, configTokens] });
 * ```
 */
export async function serverVerifiers(options: ServerVerifiersOptions): Promise<TokenVerifier[]> {
  await ensureApiTokenSchema(options.pool);
  const verifiers = [apiTokensVerifier(new ApiTokens(new PostgresApiTokenStore(options.pool)))];
  if (options.oidc) verifiers.push(oidcTokenVerifier(oidcVerifierFromConfig(options.oidc)));
  return verifiers;
}
