import type { ApiTokenConfig } from "../../config/server-config.js";
import type { ApiTokenRecord, ApiTokenStore } from "../../data-plane/stores/api-token-store.js";
import { hashApiToken } from "./api-token-hash.js";
import type { Principal, TokenVerifier } from "./principal.js";
import { TokenError } from "./token-error.js";

/** Options of {@link ApiTokenVerifier}. */
export type ApiTokenVerifierOptions = {
  /** Tokens from the configuration (hashed). @default [] */
  tokens?: readonly ApiTokenConfig[];
  /**
   * Issued tokens (`jobsight-server token create`, `storage.tokens`); absent: configuration only.
   * @default undefined
   */
  store?: Pick<ApiTokenStore, "findByHash">;
  /** How long the store's refusals (no such token, revoked) are reused, in ms. @default 10000 */
  cacheTtlMs?: number;
  /** Most cached refusals. @default 10000 */
  cacheSize?: number;
  /** The clock, in ms (tests). @default Date.now */
  now?: () => number;
};

/**
 * Scoped API tokens, known only by their sha256: from the configuration first, then from the
 * token store (revocable). A stored token is looked up on every request, so a revocation, made by
 * any process (`jobsight-server token revoke`), holds from the next request on; what a short cache
 * keeps are the store's refusals, so that a client retrying with a wrong or revoked token does not
 * reach the database on every try. A revoked token is refused with `TOKEN_REVOKED`; a token the
 * verifier does not know is left to the next verifier.
 *
 * @example
 * ```ts
 * const verifier = new ApiTokenVerifier({ tokens: config.auth.tokens, store: storage.tokens });
 * await verifier.verify(token); // { role: "collector", user: "…", cluster: "hpc1", tokenId: "…", via: "api-token" }
 * ```
 */
export class ApiTokenVerifier implements TokenVerifier {
  readonly name = "api-token";
  readonly #configured = new Map<string, Principal>();
  readonly #store: ApiTokenVerifierOptions["store"];
  readonly #refused = new Map<string, { at: number; record: ApiTokenRecord | undefined }>();
  readonly #ttl: number;
  readonly #size: number;
  readonly #now: () => number;

  constructor(options: ApiTokenVerifierOptions = {}) {
    for (const t of options.tokens ?? []) {
      this.#configured.set(t.tokenSha256, {
        role: t.role,
        user: t.user,
        tokenId: t.id,
        via: this.name,
        ...(t.cluster ? { cluster: t.cluster } : {}),
      });
    }
    this.#store = options.store;
    this.#ttl = options.cacheTtlMs ?? 10_000;
    this.#size = options.cacheSize ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The principal of a configured or live stored token; `undefined` for a token neither knows.
   *
   * @throws {TokenError} `TOKEN_REVOKED` for a stored token that was revoked.
   */
  async verify(token: string): Promise<Principal | undefined> {
    const hash = hashApiToken(token);
    const configured = this.#configured.get(hash);
    if (configured) return { ...configured };
    const record = await this.#stored(hash);
    if (!record) return undefined;
    if (record.revokedAt) throw new TokenError("TOKEN_REVOKED", `API token ${record.id} was revoked`);
    return storedTokenPrincipal(record);
  }

  async #stored(hash: string): Promise<ApiTokenRecord | undefined> {
    if (!this.#store) return undefined;
    const now = this.#now();
    const refused = this.#refused.get(hash);
    if (refused && now - refused.at < this.#ttl) return refused.record;
    const record = await this.#store.findByHash(hash);
    if (record && !record.revokedAt) return record;
    // Reusing a refusal is safe: a revocation is final, and an unknown token (256 random bits)
    // is not issued later.
    this.#refused.delete(hash);
    if (this.#refused.size >= this.#size) this.#refused.delete(this.#refused.keys().next().value as string);
    this.#refused.set(hash, { at: now, record });
    return record;
  }
}

/** The request principal of a live stored token: a token without a user acts as itself. */
function storedTokenPrincipal(record: ApiTokenRecord): Principal {
  const tokenId = `api-token:${record.id}`;
  return {
    role: record.role,
    user: record.user ?? tokenId,
    tokenId,
    via: "api-token",
    ...(record.cluster ? { cluster: record.cluster } : {}),
  };
}
