import { Type } from "@sinclair/typebox";
import { ClusterId } from "../../common.js";
import { ModelChange, ModelStatus } from "../../intelligence/model-version.js";
import { ClusterRemoval } from "../../jobs/cluster.js";
import { ApiToken, ApiTokenList, ApiTokenRequest, IssuedApiToken } from "../../platform/api-token.js";
import { UserList } from "../../platform/user-summary.js";
import type { ApiRoute } from "./api-route.js";
import { ClusterQuery } from "./route-params.js";

const ClusterIdParams = Type.Object({ clusterId: ClusterId }, { additionalProperties: false });

const TokenIdParams = Type.Object(
  { tokenId: Type.String({ minLength: 1, maxLength: 128, description: "The token's id (not the token)." }) },
  { additionalProperties: false },
);

const ModelVersionParams = Type.Object(
  { version: Type.String({ minLength: 1, maxLength: 128, description: "A model version." }) },
  { additionalProperties: false },
);

/**
 * The operators' routes: issuing and revoking API tokens, removing clusters, the users seen, and
 * which model is in service. Everything but reading the model registry is for the admin role only.
 */
export const adminRoutes: ApiRoute[] = [
  {
    method: "DELETE",
    path: "/v1/clusters/{clusterId}",
    operationId: "removeCluster",
    summary:
      "Remove a cluster's registration and revoke its issued API tokens; its recorded jobs are kept. A cluster with recorded jobs needs force=true (409 CLUSTER_HAS_JOBS otherwise)",
    tag: "clusters",
    roles: ["admin"],
    params: ClusterIdParams,
    query: Type.Object(
      {
        force: Type.Optional(
          Type.Boolean({ description: "Remove the registration even though jobs are recorded." }),
        ),
      },
      { additionalProperties: false },
    ),
    response: ClusterRemoval,
  },
  {
    method: "GET",
    path: "/v1/tokens",
    operationId: "listTokens",
    summary: "Issued API tokens, live and revoked, newest first (never the tokens themselves)",
    tag: "tokens",
    roles: ["admin"],
    response: ApiTokenList,
  },
  {
    method: "POST",
    path: "/v1/tokens",
    operationId: "createToken",
    summary:
      "Issue an API token; the answer holds the token, shown only this once. A named cluster must be registered (404 UNKNOWN_CLUSTER)",
    tag: "tokens",
    roles: ["admin"],
    body: ApiTokenRequest,
    response: IssuedApiToken,
    successStatus: 201,
  },
  {
    method: "DELETE",
    path: "/v1/tokens/{tokenId}",
    operationId: "revokeToken",
    summary: "Revoke an issued API token: refused from the next request on",
    tag: "tokens",
    roles: ["admin"],
    params: TokenIdParams,
    response: ApiToken,
  },
  {
    method: "GET",
    path: "/v1/users",
    operationId: "listUsers",
    summary: "Users seen: those with recorded jobs (per cluster) or a live issued API token",
    tag: "users",
    roles: ["admin"],
    query: ClusterQuery,
    response: UserList,
  },
  {
    method: "GET",
    path: "/v1/models",
    operationId: "getModelStatus",
    summary: "The model in service and every trained version with its backtest and decision",
    tag: "models",
    roles: ["platform"],
    response: ModelStatus,
  },
  {
    method: "POST",
    path: "/v1/models/{version}/promote",
    operationId: "promoteModel",
    summary:
      "Put a trained version into service (the one in service is retired); refused when its files cannot be served",
    tag: "models",
    roles: ["admin"],
    params: ModelVersionParams,
    response: ModelChange,
  },
  {
    method: "POST",
    path: "/v1/models/rollback",
    operationId: "rollbackModel",
    summary: "Put the previously active version back into service; the current one is marked rolled_back",
    tag: "models",
    roles: ["admin"],
    response: ModelChange,
  },
];
