import { type ApiToken, type ApiTokenRequest, type IssuedApiToken, ROLES } from "@jobsight/schemas";
import type { ApiTokenRecord } from "../../../data-plane/stores/api-token-store.js";
import { NotFoundError } from "../../../errors.js";
import { ApiTokens } from "../../../platform/identity/api-tokens.js";
import type { RouteDeps } from "../route-deps.js";
import type { RouteContext, RouteHandlers } from "../route-handler.js";
import { assertSiteWide } from "./site-wide-admin.js";

/** The wire form of a stored token: never its hash, let alone the token. */
export function toWireToken(record: ApiTokenRecord): ApiToken {
  return {
    id: record.id,
    ...(record.prefix ? { prefix: record.prefix } : {}),
    role: record.role,
    ...(record.cluster ? { cluster: record.cluster } : {}),
    ...(record.user ? { user: record.user } : {}),
    ...(record.label ? { label: record.label } : {}),
    createdAt: record.createdAt.toISOString(),
    ...(record.revokedAt ? { revokedAt: record.revokedAt.toISOString() } : {}),
  };
}

/**
 * `GET|POST /v1/tokens`, `DELETE /v1/tokens/{tokenId}` (site-wide admin): issued API tokens of
 * every role. A new token names a registered cluster or none (404 `UNKNOWN_CLUSTER`); its secret
 * is in the answer only (sent with `Cache-Control: no-store`), and logs name the token's id.
 */
export function apiTokenRoutes(deps: RouteDeps): RouteHandlers {
  const tokens = new ApiTokens(deps.storage.tokens, { clusters: deps.storage.clusters, roles: ROLES });
  return {
    listTokens: async ({ principal }: RouteContext) => {
      assertSiteWide(principal);
      return { tokens: (await tokens.list()).map(toWireToken) };
    },
    createToken: async ({ body, principal, request, reply }: RouteContext<ApiTokenRequest>) => {
      assertSiteWide(principal);
      const { token, record } = await tokens.issue(body);
      request.log.info(
        {
          tokenId: record.id,
          role: record.role,
          cluster: record.cluster,
          user: record.user,
          by: principal.user,
        },
        "API token issued",
      );
      reply.header("cache-control", "no-store");
      const answer: IssuedApiToken = { token, apiToken: toWireToken(record) };
      return answer;
    },
    revokeToken: async ({
      params,
      principal,
      request,
    }: RouteContext<unknown, unknown, { tokenId: string }>) => {
      assertSiteWide(principal);
      const record = (await tokens.list()).find((t) => t.id === params.tokenId);
      if (!record) throw new NotFoundError(`API token ${params.tokenId} not found`);
      if (record.revokedAt) return toWireToken(record);
      const at = new Date();
      await deps.storage.tokens.revoke(record.id, at);
      request.log.info({ tokenId: record.id, by: principal.user }, "API token revoked");
      return toWireToken({ ...record, revokedAt: at });
    },
  };
}
