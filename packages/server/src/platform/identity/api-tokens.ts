import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { hashToken } from "../../data-plane/stores/token-store.js";
import { ValidationError } from "../../errors.js";
import { TokenError } from "./token-error.js";
import type { VerifiedIdentity } from "./verified-identity.js";

/** The roles a scoped API token can carry: machines bound to one cluster. */
export type ApiTokenRole = "collector" | "scheduler";

/** A scoped API token as stored: never the token, only its sha256 and a display prefix. */
export type ApiTokenRecord = {
  /** Stable id, used to revoke and named in logs. */
  id: string;
  /** The token's first characters (`jst_` and 8 more), to recognise it in listings. */
  prefix: string;
  /** Lower-case hex sha256 of the whole token. */
  tokenSha256: string;
  role: ApiTokenRole;
  /** The one cluster the token acts on. */
  cluster: string;
  /** The user the token acts as, if any (e.g. the scheduler's service account). */
  user?: string;
  /** A note for people, e.g. "slurmctld on hpc1". */
  label?: string;
  createdAt: Date;
  revokedAt?: Date;
};

/** Where token records live. Implementations: {@link InMemoryApiTokenStore}, `PostgresApiTokenStore`. */
export interface ApiTokenStore {
  /** Stores a new record. */
  insert(record: ApiTokenRecord): Promise<void>;
  /** Every record (live or revoked) whose prefix is `prefix`. */
  findByPrefix(prefix: string): Promise<ApiTokenRecord[]>;
  /** Marks the token revoked at `at`; `true` if it was live. */
  revoke(id: string, at: Date): Promise<boolean>;
  /** Every record, newest first. */
  list(): Promise<ApiTokenRecord[]>;
}

/** What {@link ApiTokens.issue} needs. */
export type IssueApiTokenRequest = { role: ApiTokenRole; cluster: string; user?: string; label?: string };

/** Options of {@link ApiTokens}. */
export type ApiTokensOptions = {
  /**
   * The clock (tests).
   * @default () => new Date()
   */
  now?: () => Date;
};

/** Every Jobsight API token starts with this, so secret scanners and people can recognise one. */
export const API_TOKEN_PREFIX = "jst_";
const TOKEN_PATTERN = /^jst_[A-Za-z0-9_-]{43}$/;
const PREFIX_LENGTH = API_TOKEN_PREFIX.length + 8;
const ROLES: readonly ApiTokenRole[] = ["collector", "scheduler"];

/** sha256 (lower-case hex) of a token: the only form in which tokens are stored. */
export function hashApiToken(token: string): string {
  return hashToken(token);
}

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

/** True for strings shaped like a Jobsight API token (not whether it exists). */
export function looksLikeApiToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/**
 * Scoped API tokens for collectors and schedulers: issued once (the caller sees the token, the
 * store only its hash), verified by comparing hashes in constant time, revocable.
 *
 * @example
 * ```ts
 * const tokens = new ApiTokens(new PostgresApiTokenStore(pool));
 * const { token } = await tokens.issue({ role: "collector", cluster: "hpc1", label: "node collectors" });
 * const { principal } = await tokens.verify(token); // { roles: ["collector"], clusters: ["hpc1"], … }
 * ```
 */
export class ApiTokens {
  readonly #store: ApiTokenStore;
  readonly #now: () => Date;

  constructor(store: ApiTokenStore, options: ApiTokensOptions = {}) {
    this.#store = store;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * Creates a token; the returned `token` is the only copy there will ever be.
   *
   * @throws {ValidationError} for a role other than collector or scheduler, or no cluster.
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

  /**
   * The principal of a live token.
   *
   * @throws {TokenError} `TOKEN_MALFORMED`, `TOKEN_UNKNOWN` or `TOKEN_REVOKED`.
   */
  async verify(token: string): Promise<{ principal: VerifiedIdentity; record: ApiTokenRecord }> {
    if (!looksLikeApiToken(token)) throw new TokenError("TOKEN_MALFORMED", "Not a Jobsight API token");
    const presented = Buffer.from(hashApiToken(token), "hex");
    const candidates = await this.#store.findByPrefix(token.slice(0, PREFIX_LENGTH));
    let match: ApiTokenRecord | undefined;
    // Every candidate is compared, and one comparison happens even without candidates, so the time
    // taken says nothing about how much of the token was right.
    for (const candidate of candidates.length > 0 ? candidates : [undefined]) {
      const stored = Buffer.from(candidate?.tokenSha256 ?? "0".repeat(64), "hex");
      if (stored.length === presented.length && timingSafeEqual(stored, presented) && candidate)
        match = candidate;
    }
    if (!match) throw new TokenError("TOKEN_UNKNOWN", "No such API token");
    if (match.revokedAt) throw new TokenError("TOKEN_REVOKED", `API token ${match.id} was revoked`);
    return { principal: apiTokenPrincipal(match), record: match };
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

/** The principal a token record stands for. */
export function apiTokenPrincipal(record: ApiTokenRecord): VerifiedIdentity {
  return {
    subject: `api-token:${record.id}`,
    ...(record.user ? { user: record.user } : {}),
    roles: [record.role],
    clusters: [record.cluster],
    source: "api-token",
  };
}

/** A store in memory: for tests and single-process tools. */
export class InMemoryApiTokenStore implements ApiTokenStore {
  readonly #records = new Map<string, ApiTokenRecord>();

  async insert(record: ApiTokenRecord): Promise<void> {
    if (this.#records.has(record.id)) throw new Error(`API token ${record.id} exists`);
    this.#records.set(record.id, { ...record });
  }

  async findByPrefix(prefix: string): Promise<ApiTokenRecord[]> {
    return [...this.#records.values()].filter((r) => r.prefix === prefix).map((r) => ({ ...r }));
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
