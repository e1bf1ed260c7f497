import { type Static, Type } from "@sinclair/typebox";
import { ROLES } from "../api/routes/api-route.js";
import { ClusterId, Name, Timestamp } from "../common.js";

/** A role of the REST API, as a schema (the same list as `ROLES`). */
export const RoleName = Type.Union(
  ROLES.map((role) => Type.Literal(role)),
  { description: `A role: ${ROLES.join(", ")}.` },
);

/**
 * An issued API token as it is listed: never the token itself, only its display prefix, and who
 * and what it acts for.
 *
 * @example
 * ```ts
 * const token: ApiToken = { id: "6f0c…", prefix: "jst_q3Xk81Za", role: "collector", cluster: "hpc1",
 *   createdAt: "2026-12-02T16:30:00.000Z" };
 * ```
 */
export const ApiToken = Type.Object(
  {
    id: Type.String({ minLength: 1, description: "Stable id: named in logs, used to revoke." }),
    prefix: Type.Optional(
      Type.String({ description: "The token's first characters (jst_ and 8 more), to recognise it." }),
    ),
    role: RoleName,
    cluster: Type.Optional(ClusterId),
    user: Type.Optional(Type.String({ description: "The user the token acts as." })),
    label: Type.Optional(Type.String({ description: "A note for people." })),
    createdAt: Timestamp,
    revokedAt: Type.Optional(Timestamp),
  },
  { $id: "ApiToken", additionalProperties: false, description: "An issued API token (never its secret)." },
);
export type ApiToken = Static<typeof ApiToken>;

/**
 * Body of `POST /v1/tokens`. Collector and scheduler tokens must name a cluster; researcher,
 * platform and admin tokens must name a user; admin tokens are never bound to a cluster. A named
 * cluster must be registered.
 */
export const ApiTokenRequest = Type.Object(
  {
    role: RoleName,
    cluster: Type.Optional(ClusterId),
    user: Type.Optional(Name("The user the token acts as (a researcher sees only this user's jobs).", 256)),
    label: Type.Optional(Name("A note for people, e.g. 'slurmctld on hpc1'.", 256)),
  },
  { $id: "ApiTokenRequest", additionalProperties: false, description: "A token to issue." },
);
export type ApiTokenRequest = Static<typeof ApiTokenRequest>;

/** Answer of `POST /v1/tokens`: the token, shown this once (the server keeps only its hash). */
export const IssuedApiToken = Type.Object(
  {
    token: Type.String({ minLength: 1, description: "The secret bearer token; it is never shown again." }),
    apiToken: ApiToken,
  },
  { $id: "IssuedApiToken", additionalProperties: false, description: "A newly issued API token." },
);
export type IssuedApiToken = Static<typeof IssuedApiToken>;

/** Answer of `GET /v1/tokens`: every issued token, live or revoked, newest first. */
export const ApiTokenList = Type.Object(
  { tokens: Type.Array(ApiToken) },
  { $id: "ApiTokenList", additionalProperties: false, description: "Issued API tokens, newest first." },
);
export type ApiTokenList = Static<typeof ApiTokenList>;
