import { type Static, Type } from "@sinclair/typebox";
import { ClusterId, Timestamp } from "../common.js";
import { RoleName } from "./api-token.js";

/**
 * A user the server knows of: one who has recorded jobs, or holds a live issued API token (or
 * both). Users of configured tokens (`auth.tokens`) and OIDC sign-ins that never submitted a job
 * are not listed: the server stores nothing about them.
 *
 * @example
 * ```ts
 * const alice: UserSummary = { user: "alice", clusters: ["hpc1"], jobs: 412,
 *   lastSubmittedAt: "2026-12-02T16:30:00.000Z", liveTokens: 1, tokenRoles: ["researcher"] };
 * ```
 */
export const UserSummary = Type.Object(
  {
    user: Type.String({ description: "The user name, as jobs and tokens carry it." }),
    clusters: Type.Array(ClusterId, { description: "Clusters the user's recorded jobs ran on." }),
    jobs: Type.Integer({ minimum: 0, description: "Recorded jobs of the user (on the clusters asked for)." }),
    lastSubmittedAt: Type.Optional(Timestamp),
    liveTokens: Type.Integer({
      minimum: 0,
      description: "Issued API tokens acting as the user, not revoked.",
    }),
    tokenRoles: Type.Array(RoleName, { description: "The roles of those tokens." }),
  },
  { $id: "UserSummary", additionalProperties: false, description: "A user seen in jobs or tokens." },
);
export type UserSummary = Static<typeof UserSummary>;

/** Answer of `GET /v1/users`: every user seen, by name. */
export const UserList = Type.Object(
  { users: Type.Array(UserSummary) },
  { $id: "UserList", additionalProperties: false, description: "Users seen in jobs or tokens, by name." },
);
export type UserList = Static<typeof UserList>;
