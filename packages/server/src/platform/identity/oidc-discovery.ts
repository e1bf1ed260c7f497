import { TokenError } from "./token-error.js";

/** The fields of an OpenID Provider's discovery document the verifier relies on. */
export type OidcProviderMetadata = {
  issuer: string;
  jwks_uri: string;
  id_token_signing_alg_values_supported?: string[];
};

/** Options of {@link fetchOidcProviderMetadata}. */
export type OidcDiscoveryOptions = {
  /**
   * Milliseconds before the discovery request is abandoned.
   * @default 5000
   */
  timeoutMs?: number;
  /**
   * The fetch implementation (tests, proxies).
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
};

/** `https://idp/realms/x` → `https://idp/realms/x/.well-known/openid-configuration` (OIDC Discovery §4). */
export function discoveryUrl(issuer: string): URL {
  return new URL(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`);
}

/**
 * Fetches and checks an issuer's discovery document: HTTP 200, JSON, the `issuer` it names is
 * exactly the one configured (OIDC Discovery §4.3, else a look-alike provider could vouch for
 * another), and a `jwks_uri` on an equally secure scheme. Failures are
 * {@link TokenError}s with reason `OIDC_DISCOVERY_FAILED`.
 *
 * @example
 * ```ts
 * const { jwks_uri } = await fetchOidcProviderMetadata("https://login.example.org/realms/hpc");
 * ```
 */
export async function fetchOidcProviderMetadata(
  issuer: string,
  options: OidcDiscoveryOptions = {},
): Promise<OidcProviderMetadata> {
  const url = discoveryUrl(issuer);
  const fetchImpl = options.fetch ?? fetch;
  let body: unknown;
  try {
    // Redirects are not followed: the discovery document must come from the issuer itself.
    const response = await fetchImpl(url, {
      headers: { accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    });
    if (response.status !== 200) {
      throw new TokenError(
        "OIDC_DISCOVERY_FAILED",
        `Discovery at ${url.href} answered HTTP ${response.status}`,
      );
    }
    body = await response.json();
  } catch (error) {
    if (error instanceof TokenError) throw error;
    throw new TokenError(
      "OIDC_DISCOVERY_FAILED",
      `Discovery at ${url.href} failed: ${describe(error)}`,
      error,
    );
  }
  return checkMetadata(issuer, url, body);
}

function checkMetadata(issuer: string, url: URL, body: unknown): OidcProviderMetadata {
  const doc = body as Partial<OidcProviderMetadata> | null;
  if (!doc || typeof doc !== "object" || typeof doc.issuer !== "string" || typeof doc.jwks_uri !== "string") {
    throw new TokenError("OIDC_DISCOVERY_FAILED", `Discovery at ${url.href} lacks issuer or jwks_uri`);
  }
  if (doc.issuer !== issuer) {
    throw new TokenError(
      "OIDC_DISCOVERY_FAILED",
      `Discovery at ${url.href} names issuer ${doc.issuer}, not the configured ${issuer}`,
    );
  }
  let jwksUri: URL;
  try {
    jwksUri = new URL(doc.jwks_uri);
  } catch (error) {
    throw new TokenError("OIDC_DISCOVERY_FAILED", `Discovery at ${url.href} has an invalid jwks_uri`, error);
  }
  if (new URL(issuer).protocol === "https:" && jwksUri.protocol !== "https:") {
    throw new TokenError("OIDC_DISCOVERY_FAILED", `jwks_uri ${jwksUri.href} is not https like the issuer`);
  }
  return {
    issuer: doc.issuer,
    jwks_uri: jwksUri.href,
    ...(Array.isArray(doc.id_token_signing_alg_values_supported)
      ? { id_token_signing_alg_values_supported: doc.id_token_signing_alg_values_supported }
      : {}),
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
