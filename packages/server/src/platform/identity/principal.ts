import type { Role } from "@jobsight/schemas";

/** Who is calling: what a verified bearer token stands for. */
export type Principal = {
  role: Role;
  /** The user the token acts as; a researcher sees only this user's jobs. */
  user: string;
  /** The cluster a token is bound to (collectors, schedulers, cluster-scoped platform tokens). */
  cluster?: string;
  /** Stable, non-secret id of the credential, for logs and rate limits (never the token). */
  tokenId: string;
  /** Which verifier accepted the token. */
  via: string;
};

/**
 * Checks a bearer token. Verifiers are tried in order; the first that recognises the token
 * decides. An OIDC verifier (JWT access tokens from the site's identity provider) plugs in here
 * beside the API-token verifier.
 *
 * @example
 * ```ts
 * const verifier: TokenVerifier = { name: "static", verify: async (t) => (t === "x" ? principal : undefined) };
 * ```
 */
export type TokenVerifier = {
  readonly name: string;
  /** The principal, or `undefined` when this verifier does not accept the token. */
  verify(token: string): Promise<Principal | undefined>;
};
