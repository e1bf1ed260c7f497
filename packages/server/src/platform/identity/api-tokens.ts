import { randomBytes, randomUUID } from "node:crypto";
import { ClusterId, compileValidator, type Role } from "@jobsight/schemas";
import type { ApiTokenRecord, ApiTokenStore } from "../../data-plane/stores/api-token-store.js";
import type { ClusterStore } from "../../data-plane/stores/cluster-store.js";
import { UnknownClusterError, ValidationError } from "../../errors.js";
import { hashApiToken } from "./api-token-hash.js";

/** The roles `jobsight-server token create` issues tokens for: machines bound to one cluster. */
export type ApiTokenRole = "collector" | "scheduler";

/**
 * What {@link ApiTokens.issue} needs. Collector and scheduler tokens are bound to a cluster;
 * researcher, platform and admin tokens name the user they act as; admin tokens are site-wide.
 */
export type IssueApiTokenRequest = { role: Role; cluster?: string; user?: string; label?: string };

/** Options of {@link ApiTokens}. */
export type ApiTokensOptions = {
  /**
   * The cluster registry: when given, a token is issued only for a registered cluster.
   * @default undefined (any well-formed cluster id)
   */
  clusters?: Pick<ClusterStore, "list">;
  /**
   * The roles tokens may be issued for: `jobsight-server token` issues machine tokens only, the
   * admin route (`POST /v1/tokens`) every role.
   * @default ["collector", "scheduler"]
   */
  roles?: readonly Role[];
  /**
   * The clock (tests).
   * @default () => new Date()
   */
  now?: () => Date;
};

/** Every Jobsight API token starts with this, so secret scanners and people can recognise one. */
export const API_TOKEN_PREFIX = "jst_";
const PREFIX_LENGTH = API_TOKEN_PREFIX.length + 8;
const MACHINE_ROLES: readonly Role[] = ["collector", "scheduler"];
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
  readonly #roles: readonly Role[];
  readonly #now: () => Date;

  constructor(store: ApiTokenStore, options: ApiTokensOptions = {}) {
    this.#store = store;
    this.#clusters = options.clusters;
    this.#roles = options.roles ?? MACHINE_ROLES;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * Creates a token; the returned `token` is the only copy there will ever be.
   *
   * @throws {ValidationError} for a role not among the options' `roles`, a machine token without
   * a cluster, a person's token without a user, an admin token bound to a cluster, or a cluster
   * id clusters cannot be registered with.
   * @throws {UnknownClusterError} (with a registry) for a cluster not registered.
   */
  async issue(request: IssueApiTokenRequest): Promise<{ token: string; record: ApiTokenRecord }> {
    this.#checkShape(request);
    if (request.cluster !== undefined) await this.#checkCluster(request.cluster);
    const { token, prefix, tokenSha256 } = generateApiToken();
    const record: ApiTokenRecord = {
      id: randomUUID(),
      prefix,
      tokenSha256,
      role: request.role,
      ...(request.cluster ? { cluster: request.cluster } : {}),
      ...(request.user ? { user: request.user } : {}),
      ...(request.label ? { label: request.label } : {}),
      createdAt: this.#now(),
    };
    await this.#store.insert(record);
    return { token, record };
  }

  #checkShape(request: IssueApiTokenRequest): void {
    if (!this.#roles.includes(request.role)) {
      const roles = this.#roles.join(", ").replace(/, ([^,]*)$/, " and $1");
      throw new ValidationError([{ path: "/role", message: `API tokens are for ${roles} only` }]);
    }
    const machine = MACHINE_ROLES.includes(request.role);
    if (machine && (typeof request.cluster !== "string" || request.cluster.length === 0)) {
      throw new ValidationError([{ path: "/cluster", message: "An API token must be bound to a cluster" }]);
    }
    // A person's token without a user would act as its own id: a researcher would see no jobs,
    // and a platform or admin change would be recorded under an opaque id.
    if (!machine && !request.user) {
      const message = `A ${request.role} token must name the user it acts as`;
      throw new ValidationError([{ path: "/user", message }], `/user: ${message}`);
    }
    if (request.role === "admin" && request.cluster !== undefined) {
      const message = "An admin token is site-wide; it cannot be bound to a cluster";
      throw new ValidationError([{ path: "/cluster", message }], `/cluster: ${message}`);
    }
  }

  async #checkCluster(cluster: string): Promise<void> {
    if (!clusterId.check(cluster)) {
      const message = `${JSON.stringify(cluster)} is not a cluster id: ${ClusterId.description}`;
      throw new ValidationError([{ path: "/cluster", message }], `/cluster: ${message}`);
    }
    if (!this.#clusters) return;
    const known = (await this.#clusters.list()).map((c) => c.id);
    if (!known.includes(cluster)) throw new UnknownClusterError(cluster, "/cluster", known);
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
