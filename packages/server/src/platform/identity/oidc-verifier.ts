import {
  createRemoteJWKSet,
  customFetch,
  decodeProtectedHeader,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";
import { SecurityConfigError } from "../security-config-error.js";
import { type ClaimMappingOptions, claimsToPrincipal } from "./oidc-claims.js";
import { fetchOidcProviderMetadata } from "./oidc-discovery.js";
import { TokenError } from "./token-error.js";
import type { VerifiedIdentity } from "./verified-identity.js";

/** Asymmetric JWS algorithms a site's identity provider may sign with. */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** Options of {@link OidcVerifier}. */
export type OidcVerifierOptions = {
  /** The issuer exactly as it appears in tokens' `iss` and in its discovery document. */
  issuer: string;
  /** Accepted audiences (`aud`): the client id for ID tokens, the API's identifier for access tokens. */
  audience: string | readonly string[];
  /**
   * Accepted signature algorithms; only asymmetric ones may be named (`none` and HS* never).
   * @default ["RS256", "ES256", "EdDSA"]
   */
  algorithms?: readonly string[];
  /**
   * Clock skew tolerated on `exp` and `nbf`, in seconds.
   * @default 30
   */
  clockToleranceSeconds?: number;
  /**
   * The JWKS URL; when set, discovery is skipped.
   * @default the discovery document's `jwks_uri`
   */
  jwksUri?: string;
  /**
   * Minimum milliseconds between two JWKS refetches triggered by an unknown key id, so a flood of
   * forged tokens cannot turn into a flood of requests to the identity provider.
   * @default 30000
   */
  jwksCooldownMs?: number;
  /**
   * Milliseconds a fetched JWKS is used before it is fetched again.
   * @default 600000
   */
  jwksCacheMaxAgeMs?: number;
  /**
   * Milliseconds before a discovery or JWKS request is abandoned.
   * @default 5000
   */
  httpTimeoutMs?: number;
  /**
   * After a failed discovery, milliseconds during which requests fail fast before it is tried again.
   * @default 10000
   */
  discoveryRetryMs?: number;
  /**
   * How claims become a principal (user claim, groups → roles).
   * @default {}
   */
  claims?: ClaimMappingOptions;
  /**
   * The clock (tests).
   * @default () => new Date()
   */
  now?: () => Date;
  /**
   * The fetch implementation for discovery and JWKS (tests, proxies).
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
};

/** A verified token: the principal it names and its full claims. */
export type OidcVerification = { principal: VerifiedIdentity; claims: JWTPayload };

const DEFAULT_ALGORITHMS = ["RS256", "ES256", "EdDSA"];
const MAX_TOKEN_LENGTH = 16 * 1024;

/**
 * Verifies OpenID Connect ID and access tokens (JWTs) against the site's identity provider:
 * discovery, a cached remote JWKS that follows key rotation, issuer, audience, `exp`/`nbf` with
 * clock skew, and an algorithm allow-list checked before any key is looked up. Every refusal is a
 * {@link TokenError} (401) with a stable reason.
 *
 * @example
 * ```ts
 * const oidc = new OidcVerifier({ issuer: "https://login.example.org/realms/hpc", audience: "jobsight",
 *   claims: { groupGrants: { "hpc-admins": { roles: ["platform"] } } } });
 * const { principal } = await oidc.verify(bearerToken);
 * ```
 */
export class OidcVerifier {
  readonly #options: OidcVerifierOptions;
  readonly #algorithms: string[];
  #keys: Promise<JWTVerifyGetKey> | undefined;
  #discoveryFailure: { error: TokenError; retryAt: number } | undefined;

  constructor(options: OidcVerifierOptions) {
    this.#options = options;
    this.#algorithms = checkAlgorithms(options.algorithms ?? DEFAULT_ALGORITHMS);
    try {
      new URL(options.issuer);
    } catch {
      throw new SecurityConfigError("oidc.issuer", `${options.issuer} is not a URL`);
    }
    const audiences = typeof options.audience === "string" ? [options.audience] : options.audience;
    if (audiences.length === 0 || audiences.some((a) => a.length === 0)) {
      throw new SecurityConfigError("oidc.audience", "at least one non-empty audience is required");
    }
  }

  /**
   * Verifies `token` and maps it to a principal.
   *
   * @throws {TokenError} with the reason it was refused.
   */
  async verify(token: string): Promise<OidcVerification> {
    const alg = this.#checkHeader(token);
    const keys = await this.#getKeys();
    const options = this.#options;
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        audience: typeof options.audience === "string" ? options.audience : [...options.audience],
        algorithms: this.#algorithms,
        clockTolerance: options.clockToleranceSeconds ?? 30,
        requiredClaims: ["sub", "exp"],
        ...(options.now ? { currentDate: options.now() } : {}),
      }));
    } catch (error) {
      throw toTokenError(error, alg);
    }
    return { principal: claimsToPrincipal(claims, options.claims), claims };
  }

  // The allow-list is enforced on the header before any key is fetched, so `alg: none`, HS256 made
  // with a public key as the secret, and unknown algorithms never reach key selection.
  #checkHeader(token: string): string {
    if (typeof token !== "string" || token.length > MAX_TOKEN_LENGTH || token.split(".").length !== 3) {
      throw new TokenError("TOKEN_MALFORMED", "The token is not a compact JWS with three parts");
    }
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch (error) {
      throw new TokenError("TOKEN_MALFORMED", "The token's header cannot be decoded", error);
    }
    if (typeof alg !== "string" || !this.#algorithms.includes(alg)) {
      throw new TokenError("TOKEN_ALGORITHM", `Algorithm ${String(alg)} is not accepted`);
    }
    return alg;
  }

  #getKeys(): Promise<JWTVerifyGetKey> {
    const failure = this.#discoveryFailure;
    if (failure && Date.now() < failure.retryAt) return Promise.reject(failure.error);
    if (!this.#keys) {
      this.#keys = this.#loadKeys().then(
        (keys) => {
          this.#discoveryFailure = undefined;
          return keys;
        },
        (error: unknown) => {
          const tokenError =
            error instanceof TokenError
              ? error
              : new TokenError("OIDC_DISCOVERY_FAILED", String(error), error);
          this.#keys = undefined;
          this.#discoveryFailure = {
            error: tokenError,
            retryAt: Date.now() + (this.#options.discoveryRetryMs ?? 10_000),
          };
          throw tokenError;
        },
      );
    }
    return this.#keys;
  }

  async #loadKeys(): Promise<JWTVerifyGetKey> {
    const o = this.#options;
    const jwksUri =
      o.jwksUri ??
      (await fetchOidcProviderMetadata(o.issuer, { timeoutMs: o.httpTimeoutMs, fetch: o.fetch })).jwks_uri;
    return createRemoteJWKSet(new URL(jwksUri), {
      cooldownDuration: o.jwksCooldownMs ?? 30_000,
      cacheMaxAge: o.jwksCacheMaxAgeMs ?? 600_000,
      timeoutDuration: o.httpTimeoutMs ?? 5000,
      ...(o.fetch ? { [customFetch]: o.fetch } : {}),
    });
  }
}

function checkAlgorithms(algorithms: readonly string[]): string[] {
  if (algorithms.length === 0)
    throw new SecurityConfigError("oidc.algorithms", "at least one algorithm is required");
  for (const alg of algorithms) {
    if (!ASYMMETRIC_ALGORITHMS.includes(alg)) {
      throw new SecurityConfigError(
        "oidc.algorithms",
        `${alg} is not accepted; use asymmetric algorithms only (${ASYMMETRIC_ALGORITHMS.join(", ")})`,
      );
    }
  }
  return [...algorithms];
}

const CLAIM_REASONS = { iss: "TOKEN_ISSUER", aud: "TOKEN_AUDIENCE", nbf: "TOKEN_NOT_YET_VALID" } as const;

function toTokenError(error: unknown, alg: string): TokenError {
  if (error instanceof TokenError) return error;
  const { code, message, claim } = error as { code?: string; message?: string; claim?: string };
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return new TokenError("TOKEN_EXPIRED", "The token has expired", error);
    case "ERR_JWT_CLAIM_VALIDATION_FAILED": {
      const reason = CLAIM_REASONS[claim as keyof typeof CLAIM_REASONS] ?? "TOKEN_CLAIMS";
      return new TokenError(reason, `Claim ${claim}: ${message}`, error);
    }
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return new TokenError("TOKEN_SIGNATURE", "The signature does not verify", error);
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return new TokenError("TOKEN_SIGNATURE", "No published key matches the token's key id", error);
    case "ERR_JOSE_ALG_NOT_ALLOWED":
    case "ERR_JOSE_NOT_SUPPORTED":
      return new TokenError("TOKEN_ALGORITHM", `Algorithm ${alg} is not accepted`, error);
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
      return new TokenError("TOKEN_MALFORMED", message ?? "The token is malformed", error);
    case "ERR_JWKS_TIMEOUT":
    case "ERR_JWKS_INVALID":
    case "ERR_JWK_INVALID":
    case "ERR_JOSE_GENERIC":
      return new TokenError("OIDC_DISCOVERY_FAILED", `The key set could not be used: ${message}`, error);
    default:
      // Outside jose's own errors, only the JWKS fetch can fail here (connection refused, DNS).
      if (error instanceof TypeError) {
        return new TokenError(
          "OIDC_DISCOVERY_FAILED",
          `The key set could not be fetched: ${error.message}`,
          error,
        );
      }
      throw error;
  }
}
