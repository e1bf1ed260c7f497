import { randomBytes, randomUUID } from "node:crypto";
import { ClusterId, compileValidator } from "@jobsight/schemas";
import type { ApiTokenRecord, ApiTokenStore } from "../../data-plane/stores/api-token-store.js";
import type { ClusterStore } from "../../data-plane/stores/cluster-store.js";
import { ValidationError } from "../../errors.js";
import { hashApiToken } from "./api-token-hash.js";

/** The roles `jobsight-server token create` issues tokens for: machines bound to one cluster. */
export type ApiTokenRole = "collector" | "scheduler";

/** What {@link ApiTokens.issue} needs. */
export type IssueApiTokenRequest = { role: ApiTokenRole; cluster: string; user?: string; label?: string };

/** Options of {@link ApiTokens}. */
export type ApiTokensOptions = {
  /**
   * The cluster registry: when given, a token is issued only for a registered cluster.
   * @default undefined (any well-formed cluster id)
   */
  clusters?: Pick<ClusterStore, "list">;
  /**
   * The clock (tests).
   * @default () => new Date()
   */
  now?: () => Date;
};

/** Every Jobsight API token starts with this, so secret scanners and people can recognise one. */
export const API_TOKEN_PREFIX = "jst_";
const PREFIX_LENGTH = API_TOKEN_PREFIX.length + 8;
const ROLES: readonly ApiTokenRole[] = ["collector", "scheduler"];
// The rule clusters are registered with (`POST /v1/clusters`), so a token names a cluster that can exist.
const clusterId = compileValidator(ClusterId, "ClusterId");

/**
 * A new random token, `jst_` followed by 32 random bytes in base64url (256 bits), with the
 * prefix and hash to store.
 *
 * @example
 * ```ts
 * const { token, prefix, tokenSha256 } = generateApiToken(); // token: "jst_q3…" (47 characters)
 * ```
 */
export function generateApiToken(): { token: string; prefix: string; tokenSha256: string } {
  const token = `${API_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { token, prefix: token.slice(0, PREFIX_LENGTH), tokenSha256: hashApiToken(token) };
}

/**
 * Scoped API tokens for collectors and schedulers: issued once (the caller sees the token, the
 * store only its hash), listed, revoked. Requests present them to the `ApiTokenVerifier`.
 *
 * @example
 * ```ts
 * const tokens = new ApiTokens(storage.tokens);
 * const { token, record } = await tokens.issue({ role: "collector", cluster: "hpc1", label: "node collectors" });
 * await tokens.revoke(record.id); // refused from the next request on
 * ```
 */
export class ApiTokens {
  readonly #store: ApiTokenStore;
  readonly #clusters: ApiTokensOptions["clusters"];
  readonly #now: () => Date;

  constructor(store: ApiTokenStore, options: ApiTokensOptions = {}) {
    this.#store = store;
    this.#clusters = options.clusters;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * Creates a token; the returned `token` is the only copy there will ever be.
   *
   * @throws {ValidationError} for a role other than collector or scheduler, no cluster, a cluster
   * id clusters cannot be registered with, or (with a registry) a cluster not registered.
   */
  async issue(request: IssueApiTokenRequest): Promise<{ token: string; record: ApiTokenRecord }> {
    if (!ROLES.includes(request.role)) {
      throw new ValidationError([
        { path: "/role", message: `API tokens are for ${ROLES.join(" and ")} only` },
      ]);
    }
    if (typeof request.cluster !== "string" || request.cluster.length === 0) {
      throw new ValidationError([{ path: "/cluster", message: "An API token must be bound to a cluster" }]);
    }
    await this.#checkCluster(request.cluster);
    const { token, prefix, tokenSha256 } = generateApiToken();
    const record: ApiTokenRecord = {
      id: randomUUID(),
      prefix,
      tokenSha256,
      role: request.role,
      cluster: request.cluster,
      ...(request.user ? { user: request.user } : {}),
      ...(request.label ? { label: request.label } : {}),
      createdAt: this.#now(),
    };
    await this.#store.insert(record);
    return { token, record };
  }

  async #checkCluster(cluster: string): Promise<void> {
    if (!clusterId.check(cluster)) {
      const message = `${JSON.stringify(cluster)} is not a cluster id: ${ClusterId.description}`;
      throw new ValidationError([{ path: "/cluster", message }], `/cluster: ${message}`);
    }
    if (!this.#clusters) return;
    const known = (await this.#clusters.list()).map((c) => c.id);
    if (!known.includes(cluster)) {
      const listed = known.length > 0 ? `registered: ${known.join(", ")}` : "none is registered";
      const message = `${cluster} is not a registered cluster (${listed}); register it with POST /v1/clusters first`;
      throw new ValidationError([{ path: "/cluster", message }], `/cluster: ${message}`);
    }
  }

  /** Revokes a token by id; `true` if it was live. Effective for the next request. */
  revoke(id: string): Promise<boolean> {
    return this.#store.revoke(id, this.#now());
  }

  /** Every token record (hashes and prefixes only), newest first. */
  list(): Promise<ApiTokenRecord[]> {
    return this.#store.list();
  }
}

/** A store in memory: for tests and single-process tools. */
export class InMemoryApiTokenStore implements ApiTokenStore {
  readonly #records = new Map<string, ApiTokenRecord>();

  async insert(record: ApiTokenRecord): Promise<void> {
    if (this.#records.has(record.id)) throw new Error(`API token ${record.id} exists`);
    this.#records.set(record.id, { ...record });
  }

  async findByHash(tokenSha256: string): Promise<ApiTokenRecord | undefined> {
    const record = [...this.#records.values()].find((r) => r.tokenSha256 === tokenSha256);
    return record && { ...record };
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const record = this.#records.get(id);
    if (!record || record.revokedAt) return false;
    record.revokedAt = at;
    return true;
  }

  async list(): Promise<ApiTokenRecord[]> {
    return [...this.#records.values()]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .map((r) => ({ ...r }));
  }
}
