import type { ApiToken, ApiTokenList, ApiTokenRequest, IssuedApiToken } from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";

/** The server's issued API tokens (site-wide admin role): issue, list, revoke. */
export class TokensResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Every issued token, live and revoked, newest first: ids, prefixes, roles, never the tokens.
   *
   * @example
   * ```ts
   * const live = (await client.tokens.list()).filter((t) => !t.revokedAt);
   * ```
   */
  async list(options?: RequestOptions): Promise<ApiToken[]> {
    return (await this.transport.request<ApiTokenList>({ operationId: "listTokens", options })).tokens;
  }

  /**
   * Issue a token. `token` in the answer is the only copy there will ever be: hand it over and
   * forget it. Collector and scheduler tokens need a `cluster`; researcher, platform and admin
   * tokens a `user`; admin tokens are never cluster-bound. A cluster that is not registered
   * throws `NotFoundError` with `apiCode` `UNKNOWN_CLUSTER`. Never retried: a retry could issue
   * two tokens.
   *
   * @example
   * ```ts
   * const { token, apiToken } = await client.tokens.create({ role: "researcher", user: "alice", cluster: "hpc1" });
   * ```
   */
  create(request: ApiTokenRequest, options?: RequestOptions): Promise<IssuedApiToken> {
    return this.transport.request<IssuedApiToken>({ operationId: "createToken", body: request, options });
  }

  /**
   * Revoke a token by its id (see {@link list}); it is refused from the next request on. Revoking a
   * revoked token changes nothing; an unknown id throws `NotFoundError`.
   *
   * @example
   * ```ts
   * const revoked = await client.tokens.revoke("6f0c2a9e-1b7d-4c55-9a1e-2f3b4c5d6e7f");
   * console.log(revoked.revokedAt);
   * ```
   */
  revoke(tokenId: string, options?: RequestOptions): Promise<ApiToken> {
    return this.transport.request<ApiToken>({ operationId: "revokeToken", params: { tokenId }, options });
  }
}
