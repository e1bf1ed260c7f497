import type { ApiTokenConfig } from "../../config/server-config.js";
import { type ApiTokenRecord, hashToken } from "../../data-plane/stores/token-store.js";
import type { Principal, TokenVerifier } from "./principal.js";

/** Options of {@link ApiTokenVerifier}. */
export type ApiTokenVerifierOptions = {
  /** Tokens from the configuration (hashed). @default [] */
  tokens?: readonly ApiTokenConfig[];
  /** Looks a token hash up in the database; absent: configuration only. @default undefined */
  lookup?: (tokenSha256: string) => Promise<ApiTokenRecord | undefined>;
  /** How long a database answer is reused, in ms (revocation takes at most this long). @default 10000 */
  cacheTtlMs?: number;
  /** Most cached answers. @default 10000 */
  cacheSize?: number;
};

/**
 * Scoped API tokens, stored only as sha256 hashes: from the configuration first, then from the
 * `api_tokens` table (revocable), with a short cache so every request does not hit the database.
 *
 * @example
 * ```ts
 * const verifier = new ApiTokenVerifier({ tokens: config.auth.tokens, lookup: (h) => storage.tokens.findByHash(h) });
 * ```
 */
export class ApiTokenVerifier implements TokenVerifier {
  readonly name = "api-token";
  readonly #configured = new Map<string, ApiTokenRecord>();
  readonly #lookup?: ApiTokenVerifierOptions["lookup"];
  readonly #cache = new Map<string, { at: number; record: ApiTokenRecord | undefined }>();
  readonly #ttl: number;
  readonly #size: number;

  constructor(options: ApiTokenVerifierOptions = {}) {
    for (const t of options.tokens ?? []) {
      this.#configured.set(t.tokenSha256, { id: t.id, role: t.role, user: t.user, cluster: t.cluster });
    }
    this.#lookup = options.lookup;
    this.#ttl = options.cacheTtlMs ?? 10_000;
    this.#size = options.cacheSize ?? 10_000;
  }

  async verify(token: string): Promise<Principal | undefined> {
    const hash = hashToken(token);
    const record = this.#configured.get(hash) ?? (await this.#fromDatabase(hash));
    if (!record) return undefined;
    const principal: Principal = { role: record.role, user: record.user, tokenId: record.id, via: this.name };
    if (record.cluster) principal.cluster = record.cluster;
    return principal;
  }

  async #fromDatabase(hash: string): Promise<ApiTokenRecord | undefined> {
    if (!this.#lookup) return undefined;
    const now = Date.now();
    const cached = this.#cache.get(hash);
    if (cached && now - cached.at < this.#ttl) return cached.record;
    const record = await this.#lookup(hash);
    if (this.#cache.size >= this.#size) this.#cache.delete(this.#cache.keys().next().value as string);
    this.#cache.set(hash, { at: now, record });
    return record;
  }
}
